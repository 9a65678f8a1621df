/**
 * The Go implementation's client writes the same path, `~/.cartographer-sync.lock.json`, in its
 * own format: `{"providers": {"<provider>": {"applied_revision", "provider", "managed":
 * [{kind, name, path (relative to $HOME), content_hash (the artifact's)}]}}}`, or its older
 * single-provider form with those keys at the top level. Its records cannot become ours (no
 * per-file hash, other paths), so a writing run moves the file aside — never deleting it — and
 * starts a fresh lockfile (docs/migrating-from-go.md, docs/decisions.md "Client").
 */
import { promises as fs } from "node:fs";

/** The name the Go lockfile is moved to, next to ours. */
export const GO_LOCKFILE_ASIDE = ".cartographer-sync.lock.go.json";

/** True when `raw` (parsed JSON) is a lockfile of the Go client, either of its two forms. */
export function isGoLockfile(raw: unknown): boolean {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return false;
  const o = raw as Record<string, unknown>;
  if ("version" in o || "bindings" in o) return false;
  const isMap = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isMap(o.providers)) return true;
  return typeof o.provider === "string" && (o.managed === undefined || Array.isArray(o.managed));
}

/**
 * Moves the Go lockfile `file` to `<dir>/.cartographer-sync.lock.go.json` (or `….go.2.json`, …
 * when an earlier one is there): a hard link then an unlink, so an existing copy is never
 * replaced and the original is never lost. Returns the path it now has.
 */
export async function moveGoLockfileAside(file: string, dir: string): Promise<string> {
  for (let n = 1; n < 100; n++) {
    const name = n === 1 ? GO_LOCKFILE_ASIDE : GO_LOCKFILE_ASIDE.replace(/\.json$/, `.${n}.json`);
    const dest = `${dir}/${name}`;
    try {
      await fs.link(file, dest);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw err;
    }
    await fs.unlink(file);
    return dest;
  }
  throw new Error(`${dir} already holds 99 moved Go lockfiles; remove some`);
}
