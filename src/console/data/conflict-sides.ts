/**
 * Both sides of a registered conflict for the conflicts page: the conflicting file's text at the
 * local and at the remote commit the rebase met (`git show <sha>:<path>`), each cut at
 * MAX_SIDE_BYTES. The entries come from `conflicts_list` called as the viewer, so only conflicts
 * on concepts the viewer can see ever reach here.
 */
import { pathToId } from "../../kb/core/ids.js";
import { readBlob } from "./git-reads.js";

/** One entry of `conflicts_list` (the fields this page uses). */
export interface ConflictRow {
  concept_id: string;
  path: string;
  local_sha: string;
  remote_sha: string;
  detected_at: string;
  resolved: boolean;
}

export interface ConflictSide {
  /** null: the file does not exist on that side (deleted there). */
  text: string | null;
  truncated: boolean;
}

export const MAX_SIDE_BYTES = 256 * 1024;

/** The entries of a `conflicts_list` result (fail closed: anything malformed is left out). */
export function conflictRows(result: unknown): ConflictRow[] {
  const list = (result as { conflicts?: unknown })?.conflicts;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (c): c is ConflictRow =>
      typeof c === "object" &&
      c !== null &&
      typeof c.concept_id === "string" &&
      typeof c.path === "string" &&
      typeof c.local_sha === "string" &&
      typeof c.remote_sha === "string",
  );
}

/** Local and remote text of `row`'s file; both null when the path is not the concept's file. */
export async function conflictSides(
  root: string,
  row: ConflictRow,
): Promise<{ local: ConflictSide; remote: ConflictSide }> {
  const none = { text: null, truncated: false };
  // The registry names the concept's own file; anything else is not read.
  if (pathToId(row.path) !== row.concept_id) return { local: none, remote: none };
  const [local, remote] = await Promise.all([
    readBlob(root, row.local_sha, row.path, MAX_SIDE_BYTES),
    readBlob(root, row.remote_sha, row.path, MAX_SIDE_BYTES),
  ]);
  return { local: local ?? none, remote: remote ?? none };
}
