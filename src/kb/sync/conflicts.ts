/**
 * The conflicts registry, `.cartographer/conflicts.json` (issue 12): one entry per concept whose
 * local and remote versions could not be rebased. Both versions stay reachable from git by
 * their shas until `git_conflict_resolve` finalizes. Written atomically (writeFileAtomic).
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../atomic-write.js";
import { pathToId } from "../ids.js";

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
