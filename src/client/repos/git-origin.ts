/**
 * The `origin` remote of a clone, read from its git config file without running git: a scan
 * looks at hundreds of folders, and a process per repository would eat its time budget
 * (docs/decisions.md "Resolve: reading the origin without git"). Worktrees and submodules
 * (`.git` is a file saying `gitdir: …`) are followed to the config they share.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { normaliseRemote } from "./remote-key.js";

/** A git config larger than this is not read (a real one is a few KiB). */
const MAX_CONFIG_BYTES = 256 * 1024;

const SECTION = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/;

/**
 * The value of `remote.origin.url` in git config text (pure), as `git config --get` gives it:
 * the last one wins; `[remote "origin"]` and the older `[remote.origin]` header; section and
 * key names without regard to case; a value in double quotes with git's escapes; `#`/`;`
 * comments. Includes and `insteadOf` rewrites are not followed.
 */
export function originUrlOf(configText: string): string | undefined {
  let inOrigin = false;
  let found: string | undefined;
  for (const raw of configText.split(/\r?\n/)) {
    let line = raw.trim();
    const header = SECTION.exec(line);
    if (header) {
      const name = (header[1] as string).toLowerCase();
      const sub = header[2];
      inOrigin =
        sub !== undefined ? name === "remote" && sub === "origin" : name === "remote.origin";
      line = line.slice(header[0].length).trim();
      if (line === "") continue;
    }
    if (!inOrigin) continue;
    const eq = line.indexOf("=");
    if (eq < 0 || line.slice(0, eq).trim().toLowerCase() !== "url") continue;
    found = configValue(line.slice(eq + 1));
  }
  return found;
}

/** A config value: quotes removed, escapes applied, a trailing comment dropped. */
function configValue(text: string): string {
  let out = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length) {
      const next = text[++i] as string;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next;
    } else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "#" || c === ";")) break;
    else out += c;
  }
  return out.trim();
}

async function readSmall(file: string): Promise<string | undefined> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_CONFIG_BYTES) return undefined;
    return await fs.readFile(file, "utf8");
  } catch {
    return undefined;
  }
}

/** The config file of the clone at `dir` (`.git` a folder, or a file pointing at one). */
async function configFileOf(dir: string): Promise<string | undefined> {
  const dotGit = path.join(dir, ".git");
  let stat: import("node:fs").Stats;
  try {
    stat = await fs.lstat(dotGit);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) return path.join(dotGit, "config");
  if (!stat.isFile()) return undefined;
  const pointer = /^gitdir:\s*(.+)$/m.exec((await readSmall(dotGit)) ?? "");
  if (!pointer) return undefined;
  const gitDir = path.resolve(dir, (pointer[1] as string).trim());
  // A linked worktree's git dir names the common one, which holds the config.
  const common = (await readSmall(path.join(gitDir, "commondir")))?.trim();
  return path.join(common ? path.resolve(gitDir, common) : gitDir, "config");
}

/** The key of the clone at `dir`'s origin (remote-key.ts), or undefined. Never throws. */
export async function originKeyOf(dir: string): Promise<string | undefined> {
  const file = await configFileOf(dir);
  const text = file === undefined ? undefined : await readSmall(file);
  const url = text === undefined ? undefined : originUrlOf(text);
  return url === undefined ? undefined : normaliseRemote(url);
}
