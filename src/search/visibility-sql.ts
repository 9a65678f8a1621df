/**
 * Compiles a Visibility (src/kb/core/types.ts) into a SQL predicate over the `concepts` columns
 * map/journal/type. Must decide exactly like isVisible (src/kb/core/visibility.ts); a property test
 * pins the equivalence. Applied inside the query, before LIMIT (D118), so pages, totals and
 * snippets never reveal a hidden concept. Pure.
 */
import type { SelectorRule, Visibility } from "../kb/core/types.js";
import { placeholders, type SqlFragment, TRUE_SQL } from "./sql-fragment.js";

/** `alias` is the table alias of `concepts` in the surrounding query (e.g. `c`). */
export function visibilitySql(visibility: Visibility, alias: string): SqlFragment {
  if (visibility.all) return TRUE_SQL;
  if (visibility.rules.length === 0) return { sql: "0", params: [] };
  const rules = visibility.rules.map((rule) => ruleSql(rule, alias));
  return {
    sql: rules.map((r) => `(${r.sql})`).join(" OR "),
    params: rules.flatMap((r) => r.params),
  };
}

function ruleSql(rule: SelectorRule, alias: string): SqlFragment {
  const parts: string[] = [];
  const params: unknown[] = [];
  const containers: string[] = [];
  // Columns are NULL outside a map/journal; `NULL IN (...)` is NULL, which the IFNULL turns into
  // "not matched" so the predicate never yields NULL (it may be negated by a caller).
  if (rule.maps.length > 0) {
    containers.push(`IFNULL(${alias}.map IN (${placeholders(rule.maps.length)}), 0)`);
    params.push(...rule.maps);
  }
  if (rule.journals.length > 0) {
    containers.push(`IFNULL(${alias}.journal IN (${placeholders(rule.journals.length)}), 0)`);
    params.push(...rule.journals);
  }
  if (containers.length > 0) parts.push(`(${containers.join(" OR ")})`);
  if (rule.types.length > 0) {
    parts.push(`${alias}.type IN (${placeholders(rule.types.length)})`);
    params.push(...rule.types);
  }
  return { sql: parts.length > 0 ? parts.join(" AND ") : "1", params };
}
