/** A parameterized SQL fragment: `sql` with `?` placeholders bound to `params` in order. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

export const TRUE_SQL: SqlFragment = Object.freeze({ sql: "1", params: [] }) as SqlFragment;

/** Joins fragments with AND (an empty list is TRUE). */
export function andAll(parts: SqlFragment[]): SqlFragment {
  if (parts.length === 0) return TRUE_SQL;
  return {
    sql: parts.map((p) => `(${p.sql})`).join(" AND "),
    params: parts.flatMap((p) => p.params),
  };
}

export function placeholders(n: number): string {
  return Array.from({ length: n }, () => "?").join(", ");
}

/** Escapes `%`, `_` and `\` for a LIKE pattern used with `ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
