/**
 * The file bookkeeping the index keeps per concept (path, hash, stat), read back for the
 * stat-then-hash pass of kb-index.ts: a page of ids in order, or chosen ids.
 */
import type { IndexedFile } from "./sqlite-index-api.js";
import type { StatementCache } from "./statement-cache.js";

const FILE_COLUMNS =
  "SELECT id, path, hash, frontmatter, mtime_ms AS mtimeMs, size, stat_at_ms AS statAtMs FROM concepts";

/** Every row's bookkeeping, or the `limit` rows after id `after` (by id). */
export function indexedFilesPage(
  cache: StatementCache,
  page?: { after: string; limit: number },
): Map<string, IndexedFile> {
  const rows = (
    page
      ? cache.get(`${FILE_COLUMNS} WHERE id > ? ORDER BY id LIMIT ?`).all(page.after, page.limit)
      : cache.get(FILE_COLUMNS).all()
  ) as Array<IndexedFile & { id: string }>;
  return new Map(rows.map(({ id, ...rest }) => [id, rest]));
}

/** The bookkeeping of `ids` that have a row. */
export function indexedFilesById(
  cache: StatementCache,
  ids: readonly string[],
): Map<string, IndexedFile> {
  const one = cache.get(`${FILE_COLUMNS} WHERE id = ?`);
  const rows = ids.map((id) => one.get(id) as (IndexedFile & { id: string }) | undefined);
  return new Map(rows.filter((r) => r !== undefined).map(({ id, ...rest }) => [id, rest]));
}
