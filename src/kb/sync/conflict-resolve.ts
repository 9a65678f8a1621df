/**
 * git_conflict_resolve (issue 12): records one concept's resolution; when none is left open,
 * finalizes in ONE merge commit of origin's branch with every resolved file, then pushes.
 * The caller holds the KB's write lock. On any failure the merge is aborted and the registry
 * kept, so nothing is lost and the tool can be called again.
 */
import { mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../atomic-write.js";
import { KbError } from "../errors.js";
import { identityArgs, runGit } from "../git.js";
import type { ConflictEntry, ResolveStrategy } from "./conflicts.js";
import type { KbSync, SyncNote } from "./kb-sync.js";
import { changedPaths, currentBranch, fetchOrigin, REMOTE, revParse } from "./remote-git.js";

export interface ResolveOutcome {
  resolved: string;
  /** Ids still open; empty when the merge was committed. */
  open: string[];
  commit: string | null;
  sync_state?: SyncNote["sync_state"];
  last_error?: string | null;
}

export async function resolveConflictLocked(
  sync: KbSync,
  id: string,
  strategy: ResolveStrategy,
  content: string | undefined,
  now: Date,
): Promise<ResolveOutcome> {
  const entries = sync.conflicts().map((e) => ({ ...e }));
  const entry = entries.find((e) => e.concept_id === id);
  if (!entry)
    throw new KbError(
      "not_found",
      `no conflict is registered for ${id} (conflicts_list shows them)`,
    );
  if (strategy === "edit" && content === undefined)
    throw new KbError(
      "invalid_argument",
      "strategy edit needs body: the whole file as it should be",
    );
  entry.resolution = {
    strategy,
    ...(strategy === "edit" ? { content } : {}),
    resolved_at: now.toISOString(),
  };
  const open = entries.filter((e) => !e.resolution).map((e) => e.concept_id);
  if (open.length > 0) {
    await sync.setConflicts(entries);
    return { resolved: id, open, commit: null };
  }
  const commit = await finalize(sync, entries);
  await sync.setConflicts([]);
  // The merge commit is pushed like any write's (sync_state/last_error when not landed yet).
  return { resolved: id, open: [], commit, ...(await sync.afterCommitLocked()) };
}

async function finalize(sync: KbSync, entries: ConflictEntry[]): Promise<string> {
  const { root } = sync.remote;
  const branch = await currentBranch(root);
  if (!branch)
    throw new KbError("conflict", "the KB is on a detached HEAD: check out its branch first");
  // The freshest remote side, when the remote answers; else the one seen at detection.
  await fetchOrigin(sync.remote);
  const theirs =
    (await revParse(root, `refs/remotes/${REMOTE}/${branch}`)) ??
    (entries[0] as ConflictEntry).remote_sha;
  const before = (await revParse(root, "HEAD")) as string;
  const contents = await Promise.all(
    entries.map(async (e) => {
      const r = e.resolution;
      if (r?.strategy === "edit") return r.content ?? "";
      const side = r?.strategy === "ours" ? before : theirs;
      const shown = await runGit(root, ["show", `${side}:${e.path}`]);
      return shown.code === 0 ? shown.stdout : null; // null: that side deleted it
    }),
  );
  const who = identityArgs(await sync.committer());
  await runGit(root, [...who, "merge", "--no-commit", "--no-ff", "--no-verify", theirs]);
  try {
    for (const [i, e] of entries.entries()) {
      const text = contents[i];
      const file = join(root, e.path);
      if (text === null || text === undefined) await rm(file, { force: true });
      else {
        await mkdir(dirname(file), { recursive: true });
        await writeFileAtomic(file, text);
      }
      const add = await runGit(root, ["add", "-A", "--", `:(literal)${e.path}`]);
      if (add.code !== 0) throw new KbError("git_failed", `git add of ${e.path} failed`);
    }
    const left = (await runGit(root, ["diff", "--name-only", "-z", "--diff-filter=U"])).stdout
      .split("\0")
      .filter(Boolean);
    if (left.length > 0)
      throw new KbError(
        "conflict",
        `the remote now also conflicts on ${left.join(", ")}: not registered yet; call sync_status, then resolve again`,
      );
    const ids = entries.map((e) => e.concept_id).join(", ");
    const committed = await runGit(root, [
      ...who,
      "commit",
      "-q",
      "--no-verify",
      "-m",
      `git_conflict_resolve: ${ids}`,
    ]);
    if (committed.code !== 0) throw new KbError("git_failed", "the merge commit failed");
  } catch (err) {
    await runGit(root, ["merge", "--abort"]);
    throw err;
  }
  const after = (await revParse(root, "HEAD")) as string;
  await sync.headMoved(await changedPaths(root, before, after));
  return after;
}
