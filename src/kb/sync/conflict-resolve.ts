/**
 * git_conflict_resolve (docs/sync.md "Conflicts"): records one concept's resolution; when none is left
 * open, finalizes in ONE merge commit of origin's branch with every resolved file, then pushes.
 * The caller holds the KB's write lock. A merge that conflicts on files nobody registered yet
 * (the remote moved on since detection, or a later local commit meets a remote change) registers
 * them and answers them as still open, so that resolving what conflicts_list shows always ends
 * with a merge commit and the instance pulling and pushing again. On any failure the merge is
 * aborted and the registry kept, so nothing is lost and the tool can be called again.
 */
import { mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../../common/atomic-write.js";
import { KbError } from "../../common/errors.js";
import { identityArgs, runGit } from "../git/git.js";
import {
  type ConflictEntry,
  clearDegraded,
  markDegraded,
  type ResolveStrategy,
  registerConflict,
  withoutDegraded,
} from "./conflicts.js";
import { haltMessage, pullHalt } from "./diverged.js";
import type { KbSync } from "./kb-sync.js";
import {
  changedPaths,
  currentBranch,
  fetchOrigin,
  REMOTE,
  revParse,
  unmergedFiles,
} from "./remote-git.js";
import type { SyncNote } from "./sync-status.js";

export interface ResolveOutcome {
  resolved: string;
  /** Ids still open; empty when the merge was committed. */
  open: string[];
  commit: string | null;
  /** Ids the finalizing merge found in conflict and registered (they are in `open`). */
  new_conflicts?: string[];
  sync_state?: SyncNote["sync_state"];
  last_error?: string | null;
}

/** The content a resolution gives `entry` (null: that side deleted the file). */
export async function resolvedContent(
  root: string,
  entry: ConflictEntry,
  strategy: ResolveStrategy,
  content: string | undefined,
  theirs: string,
): Promise<string | null> {
  if (strategy === "edit") return withoutDegraded(content ?? "");
  const side = strategy === "ours" ? "HEAD" : theirs;
  const shown = await runGit(root, ["show", `${side}:${entry.path}`]);
  // The marker never reaches the remote, even when a patch of the degraded file committed it.
  return shown.code === 0 ? withoutDegraded(shown.stdout) : null;
}

/** The remote side a resolution is judged against: origin's branch as last fetched. */
export async function theirsSide(
  root: string,
  entries: readonly ConflictEntry[],
): Promise<string | null> {
  const branch = await currentBranch(root);
  const tracked = branch ? await revParse(root, `refs/remotes/${REMOTE}/${branch}`) : null;
  return tracked ?? entries[entries.length - 1]?.remote_sha ?? null;
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
    ...(strategy === "edit" ? { content: withoutDegraded(content ?? "") } : {}),
    resolved_at: now.toISOString(),
  };
  const open = entries.filter((e) => !e.resolution).map((e) => e.concept_id);
  if (open.length > 0) {
    await sync.setConflicts(entries);
    return { resolved: id, open, commit: null };
  }
  const done = await finalize(sync, entries, now);
  if ("open" in done)
    return { resolved: id, open: done.open, commit: null, new_conflicts: done.open };
  await sync.setConflicts([]);
  // The merge commit is pushed like any write's (sync_state/last_error when not landed yet).
  return { resolved: id, open: [], commit: done.commit, ...(await sync.afterCommitLocked()) };
}

type Finalized = { commit: string } | { open: string[] };

async function finalize(sync: KbSync, entries: ConflictEntry[], now: Date): Promise<Finalized> {
  const { root } = sync.remote;
  const branch = await currentBranch(root);
  if (!branch)
    throw new KbError("conflict", "the KB is on a detached HEAD: check out its branch first");
  // The freshest remote side, when the remote answers; else the one last fetched.
  await fetchOrigin(sync.remote);
  // A remote that dropped history this server had (a force-push) or tracks private state is
  // not merged: the resolution would push the dropped commits back (docs/decisions.md).
  const halt = await pullHalt(root, branch);
  if (halt) throw new KbError("conflict", haltMessage(sync.kbName, halt));
  const theirs = (await theirsSide(root, entries)) as string;
  const before = (await revParse(root, "HEAD")) as string;
  const contents = await Promise.all(
    entries.map((e) =>
      resolvedContent(root, e, e.resolution?.strategy ?? "theirs", e.resolution?.content, theirs),
    ),
  );
  // The degraded markers are the only uncommitted changes of these files: the merge needs a
  // clean tree, and the resolution replaces them. Put back if anything below fails.
  await clearDegraded(root, entries);
  const remark = async (list: ConflictEntry[]) => {
    const marked = await markDegraded(
      root,
      list.filter((e) => e.concept_id !== e.path),
    );
    await sync.headMoved([...new Set([...list.map((e) => e.path), ...marked])]);
  };
  const who = identityArgs(await sync.committer());
  const merge = await runGit(root, [
    ...who,
    "merge",
    "--no-commit",
    "--no-ff",
    "--no-verify",
    theirs,
  ]);
  const merging = (await revParse(root, "MERGE_HEAD")) !== null;
  const contained =
    (await runGit(root, ["merge-base", "--is-ancestor", theirs, before])).code === 0;
  if (!merging && !contained) {
    await remark(entries);
    throw new KbError(
      "git_failed",
      `the merge of ${REMOTE}/${branch} could not start: ${merge.stderr.trim().split("\n")[0] ?? "unknown reason"}`,
    );
  }
  const abort = async () => {
    if (merging) await runGit(root, ["merge", "--abort"]);
  };
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
    const left = await unmergedFiles(root);
    if (left.length > 0) {
      // Conflicts nobody registered yet: register them (the recorded resolutions are kept) and
      // answer them as open; the next resolution merges again.
      await abort();
      const grown = registerConflict(entries, {
        files: left,
        localSha: before,
        remoteSha: theirs,
        at: now,
      });
      await sync.setConflicts(grown, left);
      await remark(grown);
      return { open: grown.filter((e) => !e.resolution).map((e) => e.concept_id) };
    }
    const staged = await runGit(root, ["diff", "--cached", "--quiet"]);
    // Nothing to commit: a finalize already committed before a crash emptied the registry.
    if (merging || staged.code !== 0) {
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
    }
  } catch (err) {
    await abort();
    await remark(entries);
    throw err;
  }
  const after = (await revParse(root, "HEAD")) as string;
  const paths = await changedPaths(root, before, after);
  // Every registered file too: its marker is gone even where the content equals HEAD's (ours).
  await sync.headMoved([...new Set([...paths, ...entries.map((e) => e.path)])]);
  return { commit: after };
}
