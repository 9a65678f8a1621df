/**
 * A validity stamp of every file the artifact scan (artifacts.ts) may read: the folders
 * `skills/ agents/ hooks/ mcp/` and `instructions.md` (and the same under the legacy
 * `artifacts/`), walked with lstat only. Two equal stamps mean the scan would read the same
 * bytes, so the manifest built from the first may be served for the second (docs/provisioning.md
 * "Server cache"; decisions "manifest cache").
 *
 * Each entry contributes its path, type, inode, size, mode, mtime and ctime (milliseconds with
 * their sub-millisecond fraction, a double holds ~0.2 µs at today's epoch): an
 * edit in place, a rename over, a chmod, an added or removed file all change it, whoever made
 * them (a tool write, `git pull`, an editor). File timestamps come from a coarse kernel clock, so
 * two same-size edits within one tick can leave mtime and ctime equal (git's "racily clean"
 * problem): a file changed less than RACY_MS before the stamp is taken also contributes a hash
 * of its bytes. Hidden entries and symlinks are stamped too (over-invalidating is harmless);
 * a symlink is never followed.
 */
import { createHash, type Hash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import {
  ARTIFACT_FILE_MAX_BYTES,
  ARTIFACT_ROOTS,
  INSTRUCTIONS_FILE,
  LEGACY_ARTIFACTS_DIR,
} from "./artifacts.js";

/** A file changed more recently than this is stamped by content too (coarse clocks, 2 s FAT). */
export const RACY_MS = 2_000;
/** More entries than this: no stamp (the caller scans every time instead of walking twice). */
export const STAMP_MAX_ENTRIES = 50_000;
/**
 * More recently changed bytes than this: no stamp. A tree being written (a pull, a bulk import)
 * is read once by the scan rather than twice (stamp + scan); it is cached once it settles.
 */
export const STAMP_MAX_RACY_BYTES = 1024 * 1024;

class TooMany extends Error {}

/**
 * The stamp of the artifact tree under `root`, or null when it has more than STAMP_MAX_ENTRIES
 * entries or more than STAMP_MAX_RACY_BYTES in files changed within RACY_MS. `legacy` also stamps `artifacts/…`; `instructions` stamps `instructions.md`.
 * `now` (ms since the epoch) decides which files are racy.
 */
export function artifactTreeStamp(
  root: string,
  opts: { legacy: boolean; instructions: boolean; now?: number },
): string | null {
  const racyAfter = (opts.now ?? Date.now()) - RACY_MS;
  const h = createHash("sha256");
  let entries = 0;
  let racyBytes = 0;
  const visit = (rel: string) => {
    if (++entries > STAMP_MAX_ENTRIES) throw new TooMany();
    const abs = join(root, rel);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st) {
      h.update(`${rel}\0-\n`);
      return;
    }
    const type = st.isDirectory() ? "d" : st.isFile() ? "f" : st.isSymbolicLink() ? "l" : "o";
    h.update(`${rel}\0${type}\0${st.ino}\0${st.size}\0${st.mode}\0${st.mtimeMs}\0${st.ctimeMs}`);
    // A file over the per-file limit is skipped by the scan whatever its bytes: size is enough.
    if (type === "f" && st.size <= ARTIFACT_FILE_MAX_BYTES && isRacy(st, racyAfter)) {
      racyBytes += st.size;
      if (racyBytes > STAMP_MAX_RACY_BYTES) throw new TooMany();
      stampContent(h, abs);
    }
    h.update("\n");
    if (type !== "d") return;
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch {
      h.update(`${rel}\0unreadable\n`);
      return;
    }
    for (const name of names.sort()) visit(`${rel}/${name}`);
  };
  const top = [...ARTIFACT_ROOTS, ...(opts.instructions ? [INSTRUCTIONS_FILE] : [])];
  const prefixes = opts.legacy ? ["", `${LEGACY_ARTIFACTS_DIR}/`] : [""];
  try {
    for (const prefix of prefixes) for (const name of top) visit(`${prefix}${name}`);
  } catch (e) {
    if (e instanceof TooMany) return null;
    throw e;
  }
  return h.digest("hex");
}

function isRacy(st: Stats, racyAfter: number): boolean {
  return st.mtimeMs >= racyAfter || st.ctimeMs >= racyAfter;
}

function stampContent(h: Hash, abs: string): void {
  try {
    h.update("\0c").update(createHash("sha256").update(readFileSync(abs)).digest());
  } catch {
    h.update("\0unreadable");
  }
}
