/**
 * What `disconnect` leaves behind, cleared (docs/client.md "Commands"): a provider file that
 * holds nothing but the empty container our entries were in (`{"mcpServers": {}}`, a
 * whitespace-only `config.toml`) is removed, and so are the folders on the way to it that are
 * left empty — up to, never including, the user's home or the project directory. Nothing that
 * holds a byte of anyone else is removed (docs/decisions.md, Client).
 */
import { promises as fs } from "node:fs";
import path from "node:path";

const BOM = "\uFEFF";

/**
 * True when `text` (the file after our entries were removed) holds nothing of anyone's: only
 * whitespace, or a JSON object whose every value is an empty object. A TOML file never parses
 * as JSON, so one rule serves both formats.
 */
export function isBareConfig(text: string): boolean {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  if (body.trim() === "") return true;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return false;
  }
  const isEmptyObject = (v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.values(value).every(isEmptyObject)
  );
}

function strictlyInside(p: string, dir: string): boolean {
  return p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/**
 * Removes `dir` and then its parents while each is an empty real folder (never a symlink)
 * strictly inside one of `anchors`. Stops at the first that is not empty.
 */
export async function removeEmptyDirs(dir: string, anchors: readonly string[]): Promise<void> {
  const roots = anchors.map((a) => path.resolve(a));
  // Never an anchor itself (a project directory inside $HOME is not ours to remove).
  for (let d = path.resolve(dir); roots.some((a) => strictlyInside(d, a)) && !roots.includes(d); ) {
    const st = await fs.lstat(d).catch(() => null);
    if (!st?.isDirectory()) return;
    try {
      await fs.rmdir(d);
    } catch {
      return; // not empty (or not ours to remove)
    }
    d = path.dirname(d);
  }
}
