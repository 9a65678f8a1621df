/**
 * `concept_list` predicates: `key=value` and `key!=value` on frontmatter, compiled to SQL. Pure.
 * `type`, `map`, `journal`, `title` and `id` compare against their columns; any other key
 * compares against the flattened `fields` table, where a list field has one row per element, so
 * `key=value` matches when any element equals value and `key!=value` when none does (a concept
 * without the key satisfies `!=`). Comparison is exact text: numbers and booleans as written
 * in YAML (`3`, `true`), null as the empty string.
 */
import { KbError } from "../common/errors.js";
import type { SqlFragment } from "./sql-fragment.js";

export interface WherePredicate {
  key: string;
  op: "=" | "!=";
  value: string;
}

const COLUMN_KEYS = new Set(["type", "map", "journal", "title", "id"]);
const CLAUSE = /^\s*([A-Za-z0-9_.-]+)\s*(!=|=)(.*)$/s;
const ACCEPTED =
  "accepted forms: `key=value` or `key!=value` (key of letters, digits, `_`, `.`, `-`)";

export function parseWhere(clauses: readonly string[]): WherePredicate[] {
  return clauses.map((clause) => {
    const m = CLAUSE.exec(clause);
    if (!m) {
      throw new KbError(
        "invalid_argument",
        `where clause ${JSON.stringify(clause)} is not valid; ${ACCEPTED}`,
      );
    }
    return { key: m[1] as string, op: m[2] as "=" | "!=", value: (m[3] as string).trim() };
  });
}

/** One predicate as SQL over `concepts` aliased `alias`. */
export function whereSql(pred: WherePredicate, alias: string): SqlFragment {
  if (COLUMN_KEYS.has(pred.key)) {
    // IS / IS NOT compare NULL columns (map/journal/title) safely: `map!=x` holds outside maps.
    const op = pred.op === "=" ? "IS" : "IS NOT";
    return { sql: `${alias}.${pred.key} ${op} ?`, params: [pred.value] };
  }
  const exists = `EXISTS (SELECT 1 FROM fields f WHERE f.concept = ${alias}.rowid AND f.key = ? AND f.value = ?)`;
  return { sql: pred.op === "=" ? exists : `NOT ${exists}`, params: [pred.key, pred.value] };
}
