/**
 * The index's own key/value facts (table `meta`): what a build or an open records about the file
 * itself, such as a bulk build under way (bulk-settings.ts).
 */
import type { StatementCache } from "./statement-cache.js";

export function readMeta(cache: StatementCache, key: string): string | null {
  const row = cache.get("SELECT value FROM meta WHERE key = ?").get(key) as
    | { value: string }
    | undefined;
  return row?.value ?? null;
}

export function writeMeta(cache: StatementCache, key: string, value: string): void {
  cache
    .get(
      "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    )
    .run(key, value);
}
