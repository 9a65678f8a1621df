/**
 * Rolling back a write whose commit failed: a write is one commit or nothing (docs/decisions.md "A
 * write whose commit fails is rolled back"). Before a plan is applied, the bytes its files had are
 * remembered; if the commit then fails (git index.lock held, a hook refusing, a full disk) the
 * files get those bytes back through the same atomic apply, and the paths are unstaged, so nothing
 * is left for a later commit (or a person's `git commit -a`) to sweep up. The caller is told
 * nothing changed and may retry.
 */
import { readFile } from "node:fs/promises";
import { resolveInside } from "../../common/paths.js";
import type { Logger } from "../../logger.js";
import type { FileChange } from "../core/api.js";
import { applyChanges } from "../store/apply.js";
import { runGit } from "./git.js";

export class UncommittedWrites {
  /** Repository-relative path → its bytes before the first apply since the last commit (null: absent). */
  private readonly before = new Map<string, Buffer | null>();

  constructor(private readonly root: string) {}

  /** Records the current bytes of the paths not recorded yet (call before applying them). */
  async remember(paths: string[]): Promise<void> {
    for (const path of paths) {
      if (this.before.has(path)) continue; // the first apply's "before" is the one to restore
      this.before.set(path, await readOrNull(resolveInside(this.root, path)));
    }
  }

  /** The writes are committed (or not to be committed): nothing to roll back any more. */
  forget(): void {
    this.before.clear();
  }

  /**
   * Puts every remembered file back as it was and unstages it. Returns what could not be
   * restored (empty on success); failures are logged, never thrown over the commit's error.
   */
  async rollBack(logger: Logger): Promise<string[]> {
    const changes: FileChange[] = [...this.before].map(([path, content]) => ({ path, content }));
    this.before.clear();
    if (changes.length === 0) return [];
    const paths = changes.map((c) => c.path);
    try {
      await applyChanges(this.root, changes);
    } catch (err) {
      logger.error(`rolling back an uncommitted write failed: ${(err as Error).message}`);
      return paths;
    }
    // Back to HEAD's entries in the git index (what `git add` staged is dropped). Nothing staged
    // (git add itself failed, e.g. on a held index.lock): leave the index alone.
    const cached = await runGit(this.root, ["diff", "--cached", "--name-only", "-z"]);
    const stagedNow = new Set(cached.stdout.split("\0"));
    if (cached.code === 0 && !paths.some((p) => stagedNow.has(p))) return [];
    const list = `${paths.map((p) => `:(literal)${p}`).join("\0")}\0`;
    const reset = await runGit(
      this.root,
      ["reset", "-q", "HEAD", "--pathspec-from-file=-", "--pathspec-file-nul"],
      list,
    );
    if (reset.code !== 0) {
      logger.error(`unstaging a rolled-back write failed: ${reset.stderr.trim().split("\n")[0]}`);
      return paths;
    }
    return [];
  }
}

async function readOrNull(abs: string): Promise<Buffer | null> {
  try {
    return await readFile(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR" || code === "ENOTDIR") return null;
    throw e;
  }
}
