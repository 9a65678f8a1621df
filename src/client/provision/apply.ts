/**
 * Applies a provisioning plan to disk. Guarantees (docs/client.md "Provisioning"):
 * - writes only inside one of the target's roots; a missing root is created (with its missing
 *   parents, only inside the binding's home or project directory), nothing above a root is
 *   followed or removed, and a root itself is never removed;
 * - never through a symlink: every component from the root down is lstat-ed before a write, the
 *   target is re-checked, files are read with O_NOFOLLOW and replaced by rename (which replaces
 *   a name, never follows it);
 * - one atomic write per file (temp + rename in the same directory, src/common/atomic-write.ts),
 *   mode 0755 / 0644 exactly; unchanged files are not touched (their mtime stays);
 * - a shared file gets all of our sections in one read-modify-write; a file that does not parse
 *   fails that file's sections only, and is left byte for byte; a shared file that is a root of
 *   its own may be a symlink that stays inside the anchors, written through (root-file.ts);
 * - pruning re-checks the bytes are still ours, then removes the file and the directories the
 *   engine created once they are empty, never a root.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { syncDirs, writeFileAtomic } from "../../common/atomic-write.js";
import { ESCAPE_NOTE, symlinkEscape } from "../symlink-escape.js";
import { BlockedPath, dirsBetween, isUnder, readBytesNoFollow, rootOf } from "./disk.js";
import { sha256Hex } from "./lockfile.js";
import { type FileAction, type ProvisionPlan, type SectionAction, WRITES } from "./plan.js";
import { readRootFile, writeRootFile } from "./root-file.js";

export interface ApplyOutcome {
  /** Actions that did not happen: file path or section key → why. */
  failed: Map<FileAction | SectionAction, string>;
  /** Directories created below a root by this run. */
  createdDirs: string[];
}

const message = (err: unknown) =>
  err instanceof BlockedPath
    ? err.message.endsWith(ESCAPE_NOTE)
      ? err.message
      : `${err.message}; nothing is written through a symlink`
    : ((err as NodeJS.ErrnoException)?.code ?? "") === "EACCES"
      ? `permission denied (${(err as Error).message})`
      : ((err as Error)?.message ?? String(err));

class DirMaker {
  private readonly ok = new Set<string>();
  readonly created: string[] = [];

  /**
   * `anchor`: the binding's home or project directory; a missing root is made below it only.
   * `anchors`: the folders a root may be reached through symlinks within (symlink-escape.ts).
   */
  constructor(
    private readonly anchor: string,
    readonly anchors: readonly string[],
  ) {}

  /** Makes `file`'s parent directories from `root` down, refusing any non-directory component. */
  async ensure(root: string, file: string): Promise<void> {
    if (!this.ok.has(root)) {
      const escaped = symlinkEscape(root, this.anchors);
      if (escaped !== undefined) throw new BlockedPath(`${escaped}; ${ESCAPE_NOTE}`);
    }
    for (const dir of dirsBetween(root, file)) {
      if (this.ok.has(dir)) continue;
      let st = await fs.lstat(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return null;
        throw err;
      });
      if (!st) {
        try {
          if (dir === root) {
            // A fresh machine has no ~/.agents or ~/.config yet: the root may be made with its
            // parents, but only inside the binding's home or project directory.
            if (!isUnder(root, this.anchor))
              throw new Error(`${root} is not inside ${this.anchor}; nothing is created there`);
            await fs.mkdir(root, { recursive: true, mode: 0o755 });
          } else {
            await fs.mkdir(dir, { mode: 0o755 });
            this.created.push(dir);
          }
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        }
        st = await fs.lstat(dir);
      }
      // The root may be a link that stays in the user's folders (checked above); nothing below.
      if (st.isSymbolicLink() && dir === root) st = await fs.stat(dir);
      if (st.isSymbolicLink()) throw new BlockedPath(`${dir} is a symlink`);
      if (!st.isDirectory()) throw new BlockedPath(`${dir} is not a directory`);
      this.ok.add(dir);
    }
  }
}

/** Replaces `file` only if what is there now is absent or a regular file. */
async function assertReplaceable(file: string): Promise<void> {
  const st = await fs.lstat(file).catch(() => null);
  if (st?.isSymbolicLink()) throw new BlockedPath(`${file} is a symlink`);
  if (st && !st.isFile()) throw new BlockedPath(`${file} is not a regular file`);
}

async function runBounded<T>(items: readonly T[], limit: number, fn: (t: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function requireRoot(p: string, roots: readonly string[]): string {
  const root = rootOf(p, roots);
  if (!root) throw new Error(`${p} is outside the provider's folders; refused`);
  return root;
}

async function writeFiles(
  actions: FileAction[],
  roots: readonly string[],
  dirs: DirMaker,
  failed: ApplyOutcome["failed"],
) {
  // Each file is fsynced before its rename; the renames are made durable by one fsync per
  // directory at the end (not one per file: 3,000 files sit in ~1,000 folders), before the
  // caller records the batch in the lockfile.
  const touched = new Set<string>();
  await runBounded(actions, 16, async (a) => {
    try {
      const desired = a.desired;
      if (!desired) throw new Error("nothing to write");
      await dirs.ensure(requireRoot(a.path, roots), a.path);
      await assertReplaceable(a.path);
      await writeFileAtomic(a.path, desired.bytes, {
        mode: desired.executable ? 0o755 : 0o644,
        deferDirSync: touched,
      });
    } catch (err) {
      failed.set(a, message(err));
    }
  });
  await syncDirs(touched);
}

/** The file's text with each action's section set or removed, in order. */
function withSections(text: string | null, list: readonly SectionAction[]): string | null {
  let out = text;
  for (const a of list) out = a.section.write(out, a.kind === "remove" ? null : a.section.desired);
  return out;
}

/** A shared file that is a root of its own, written through an inside link (root-file.ts). */
async function writeRootSections(
  file: string,
  list: readonly SectionAction[],
  anchors: readonly string[],
): Promise<void> {
  const before = await readRootFile(file, anchors);
  const text = withSections(before, list) ?? "";
  const mode = list.find((a) => a.section.mode !== undefined)?.section.mode;
  const removeBare = list.some((a) => a.kind === "remove" && a.section.bare?.(text));
  if (removeBare && before === null) return;
  const unchanged = before === null ? text === "" : text === before;
  if (unchanged && mode === undefined && !removeBare) return;
  await writeRootFile(file, text, { anchors, removeBare, ...(mode !== undefined ? { mode } : {}) });
}

/**
 * One read-modify-write per shared file, all of its sections or none. `stopAtFailure`: the
 * files after a failed one are not written (connect's entry before its instructions block).
 */
async function writeSections(
  actions: SectionAction[],
  roots: readonly string[],
  dirs: DirMaker,
  failed: ApplyOutcome["failed"],
  stopAtFailure: boolean,
) {
  const byFile = new Map<string, SectionAction[]>();
  for (const a of actions) {
    const list = byFile.get(a.section.file) ?? [];
    list.push(a);
    byFile.set(a.section.file, list);
  }
  let stopped: string | undefined;
  for (const [file, list] of byFile) {
    if (stopped !== undefined) {
      for (const a of list) failed.set(a, `not written: ${stopped} failed first`);
      continue;
    }
    // A root file's failure is told in the client writer's own words (atomic-file.ts).
    let rootFile = false;
    try {
      const root = requireRoot(file, roots);
      rootFile = root === file;
      if (rootFile) {
        await writeRootSections(file, list, dirs.anchors);
        continue;
      }
      await dirs.ensure(root, file);
      await assertReplaceable(file);
      const before = await readBytesNoFollow(file);
      const text = withSections(before === null ? null : before.toString("utf8"), list);
      // A new shared file (settings.json, ~/.claude.json) is private, as the tools make theirs.
      const mode = before === null ? 0o600 : (await fs.lstat(file)).mode & 0o777;
      const unchanged =
        before === null ? text === null || text === "" : text === before.toString("utf8");
      if (text !== null && !unchanged) await writeFileAtomic(file, text, { mode });
    } catch (err) {
      const why = rootFile ? ((err as Error)?.message ?? String(err)) : message(err);
      for (const a of list) failed.set(a, why);
      if (stopAtFailure) stopped = file;
    }
  }
}

async function pruneFiles(
  actions: FileAction[],
  roots: readonly string[],
  failed: ApplyOutcome["failed"],
) {
  await runBounded(actions, 16, async (a) => {
    try {
      const root = requireRoot(a.path, roots);
      for (const dir of dirsBetween(root, a.path)) {
        const st = await (dir === root ? fs.stat(dir) : fs.lstat(dir)).catch(() => null);
        if (!st) return; // already gone with its folder
        if (!st.isDirectory()) throw new BlockedPath(`${dir} is a symlink or not a directory`);
      }
      const bytes = await readBytesNoFollow(a.path);
      if (bytes === null) return;
      // The plan saw our bytes; the user may have edited the file since.
      if (!a.forced && sha256Hex(bytes) !== a.locked?.sha256)
        throw new Error(`${a.path} changed while syncing; kept`);
      await fs.unlink(a.path);
    } catch (err) {
      failed.set(a, message(err));
    }
  });
}

/**
 * Removes directories the engine created that no longer hold anything we keep (deepest first;
 * a directory the user put files in stays). Returns those still needed or still there.
 */
export async function pruneDirs(
  candidates: readonly string[],
  keep: readonly string[],
  roots: readonly string[],
): Promise<string[]> {
  // Every ancestor directory of a kept path, once (a sync keeps thousands of paths).
  const neededDirs = new Set<string>();
  for (const p of keep) {
    for (let d = path.dirname(p); !neededDirs.has(d) && d !== path.dirname(d); d = path.dirname(d))
      neededDirs.add(d);
  }
  const needed = (d: string) => neededDirs.has(d);
  const remaining: string[] = [];
  const ordered = [...new Set(candidates)].sort((a, b) => b.length - a.length);
  for (const dir of ordered) {
    if (needed(dir)) {
      remaining.push(dir);
      continue;
    }
    if (!roots.some((r) => isUnder(dir, r))) continue; // a root, or outside every root: never removed
    const st = await fs.lstat(dir).catch(() => null);
    if (!st?.isDirectory()) continue;
    await fs.rmdir(dir).catch(() => {});
  }
  return remaining;
}

/** Applies every writing and pruning action of `plan`; kept and unchanged ones are not touched. */
export async function applyProvision(
  plan: ProvisionPlan,
  roots: readonly string[],
  anchor: string,
  anchors: readonly string[] = [anchor],
  stopAtFailure = false,
): Promise<ApplyOutcome> {
  const failed: ApplyOutcome["failed"] = new Map();
  const dirs = new DirMaker(anchor, anchors);
  // Files before sections (a hook registration never points at a missing script), prunes last
  // (a registration is removed before its script).
  await writeFiles(
    plan.files.filter((f) => WRITES.has(f.kind)),
    roots,
    dirs,
    failed,
  );
  await writeSections(
    plan.sections.filter((s) => WRITES.has(s.kind) || s.kind === "remove"),
    roots,
    dirs,
    failed,
    stopAtFailure,
  );
  await pruneFiles(
    plan.files.filter((f) => f.kind === "prune"),
    roots,
    failed,
  );
  return { failed, createdDirs: dirs.created };
}
