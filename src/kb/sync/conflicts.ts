/**
 * The conflicts registry, `.cartographer/conflicts.json` (docs/sync.md "Conflicts"): one entry per
 * concept whose local and remote versions could not be rebased. Both versions stay reachable from
 * git by their shas until `git_conflict_resolve` finalizes. Written atomically (writeFileAtomic).
 */
import { lstat, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../common/atomic-write.js";
import { parseDocument, serializeDocument } from "../core/frontmatter.js";
import { pathToId } from "../core/ids.js";
import { runGit } from "../git/git.js";

export type ResolveStrategy = "ours" | "theirs" | "edit";

export interface ConflictEntry {
  /** Concept id, or the KB-root-relative path of a file that is not a concept. */
  concept_id: string;
  path: string;
  local_sha: string;
  remote_sha: string;
  /** Every file of the failed rebase (the same list on each entry of one detection). */
  files: string[];
  detected_at: string;
  /** Set by git_conflict_resolve; the entry is finalized with the others. */
  resolution?: { strategy: ResolveStrategy; content?: string; resolved_at: string };
}

const FILE = join(".cartographer", "conflicts.json");

export async function readConflicts(root: string): Promise<ConflictEntry[]> {
  let text: string;
  try {
    text = await readFile(join(root, FILE), "utf8");
  } catch {
    return [];
  }
  try {
    const parsed = JSON.parse(text) as { conflicts?: unknown };
    return Array.isArray(parsed.conflicts) ? (parsed.conflicts as ConflictEntry[]) : [];
  } catch {
    return [];
  }
}

export async function writeConflicts(root: string, entries: ConflictEntry[]): Promise<void> {
  await mkdir(join(root, ".cartographer"), { recursive: true });
  await writeFileAtomic(join(root, FILE), `${JSON.stringify({ conflicts: entries }, null, 2)}\n`);
}

/** Entries for the files of one failed rebase, merged into `existing` (one per concept id). */
export function registerConflict(
  existing: ConflictEntry[],
  detected: { files: string[]; localSha: string; remoteSha: string; at: Date },
): ConflictEntry[] {
  const out = existing.filter((e) => !detected.files.includes(e.path));
  for (const path of detected.files) {
    out.push({
      concept_id: pathToId(path) ?? path,
      path,
      local_sha: detected.localSha,
      remote_sha: detected.remoteSha,
      files: [...detected.files],
      detected_at: detected.at.toISOString(),
    });
  }
  return out;
}

/** The frontmatter value a conflicting concept carries in the work tree (Go's marker). */
export const DEGRADED_STATUS = "degraded";

const isConcept = (e: ConflictEntry) => e.concept_id !== e.path;

/**
 * Writes `status: degraded` into the frontmatter of each conflicting concept's file (as the Go
 * implementation does; docs/decisions.md): humans see it in their editor. The marker lives in the
 * work tree only, never in a commit (every commit stages exactly its own paths, and writes to a
 * concept in conflict are refused); finalize restores the files before it merges. Best effort: a
 * file that is missing, not a regular file or not parseable is left alone. Returns the paths
 * changed.
 */
export async function markDegraded(
  root: string,
  entries: readonly ConflictEntry[],
): Promise<string[]> {
  const marked: string[] = [];
  for (const e of entries) {
    if (!isConcept(e)) continue;
    const file = join(root, e.path);
    const st = await lstat(file).catch(() => null);
    if (!st?.isFile()) continue; // missing (deleted on our side) or a symlink: never followed
    try {
      const text = await readFile(file, "utf8");
      const doc = parseDocument(text);
      if (!doc.hasFrontmatter || doc.frontmatter.status === DEGRADED_STATUS) continue;
      const fm = { ...doc.frontmatter, status: DEGRADED_STATUS };
      await writeFileAtomic(file, serializeDocument(fm, doc.body, text));
      marked.push(e.path);
    } catch {
      // unparseable frontmatter: the registry and `degraded: true` on reads still say it
    }
  }
  return marked;
}

/**
 * Removes the markers: each registered file that differs from HEAD in the work tree gets HEAD's
 * version back (the only uncommitted change a conflicting concept can carry is its marker).
 * Returns the paths restored.
 */
export async function clearDegraded(
  root: string,
  entries: readonly ConflictEntry[],
): Promise<string[]> {
  const paths = entries.map((e) => e.path);
  if (paths.length === 0) return [];
  const specs = paths.map((p) => `:(literal)${p}`);
  const changed = await runGit(root, ["diff", "--name-only", "-z", "HEAD", "--", ...specs]);
  const dirty = changed.stdout.split("\0").filter(Boolean);
  if (dirty.length === 0) return [];
  const tracked = await runGit(root, ["ls-tree", "-z", "--name-only", "HEAD", "--", ...dirty]);
  const inHead = tracked.stdout.split("\0").filter(Boolean);
  if (inHead.length > 0)
    await runGit(root, ["checkout", "-q", "HEAD", "--", ...inHead.map((p) => `:(literal)${p}`)]);
  return inHead;
}

/**
 * `status: degraded` taken out of a resolution's frontmatter (an `edit` body copied from a read
 * of the degraded concept carries it); any other status is kept.
 */
export function withoutDegraded(text: string): string {
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text);
  } catch {
    return text;
  }
  if (doc.frontmatter.status !== DEGRADED_STATUS) return text;
  const { status: _drop, ...rest } = doc.frontmatter;
  return serializeDocument(rest, doc.body, text);
}
