/**
 * The read tools' JSON answers for a person: aligned rows cut to the terminal (columns.ts), a
 * concept as its header and body. Each renderer answers the whole text for stdout; notes about
 * the answer (a partial index, a cut page) are lines after the rows.
 */
import { columns, oneLine } from "../columns.js";

type Json = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : v == null ? "" : String(v));
const items = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/** A note the answer carries: the index still building (search, concept_list). */
function indexNote(answer: Json): string {
  const index = answer.index as Json | undefined;
  if (!index) return "";
  return `(the search index is still building: ${oneLine(JSON.stringify(index))}; results may be incomplete)\n`;
}

export function renderSearch(answer: Json, query: string, width: number | null): string {
  const hits = items(answer.results);
  if (hits.length === 0) return `no concept matches "${query}"\n${indexNote(answer)}`;
  const rows = hits.map((h) => [
    str(h.id),
    str(h.type),
    [str(h.title), oneLine(str(h.snippet))].filter(Boolean).join(" — "),
  ]);
  const partial =
    answer.match === "any_term"
      ? "(no concept has every word; these have some)\n"
      : answer.match === "substring"
        ? "(matched as a substring of a title or body)\n"
        : "";
  return columns(rows, width) + partial + indexNote(answer);
}

export function renderList(answer: Json, width: number | null): string {
  const rows = items(answer.items).map((c) => [str(c.id), str(c.type), str(c.title)]);
  if (rows.length === 0) return `no concepts\n${indexNote(answer)}`;
  const more =
    answer.truncated === true
      ? `(${rows.length} of ${str(answer.total)}; pass --limit for more)\n`
      : "";
  return columns(rows, width) + more + indexNote(answer);
}

/** `2024-05-01T10:20:30.000Z` as `2024-05-01 10:20`: minutes are enough to scan a log. */
const minutes = (iso: string) => iso.replace("T", " ").slice(0, 16);

export function renderLog(answer: Json, width: number | null): string {
  const changes = items(answer.changes);
  const since = minutes(str(answer.since));
  if (changes.length === 0) return `no changes since ${since}\n`;
  const rows = changes.map((c) => [
    minutes(str(c.last_time)),
    str(c.change),
    c.from ? `${str(c.from)} → ${str(c.id)}` : str(c.id),
    oneLine(str(items(c.subjects).length > 0 ? (c.subjects as unknown[])[0] : "")),
  ]);
  const more =
    answer.truncated === true
      ? `(${rows.length} of ${str(answer.total)} since ${since}; pass --limit for more)\n`
      : "";
  return columns(rows, width) + more;
}

/** A concept: its id and kind on one line, the body (or section, or outline) as written. */
export function renderConcept(answer: Json, width: number | null): string {
  const kind = [str(answer.type), answer.map ? `map ${str(answer.map)}` : ""]
    .filter(Boolean)
    .join(", ");
  const title = str((answer.frontmatter as Json | undefined)?.title);
  const head = columns([[str(answer.id), kind, title]], width);
  const section = answer.section === undefined ? "" : `§ ${str(answer.section)}\n`;
  let body: string;
  if (Array.isArray(answer.outline)) {
    body = columns(
      items(answer.outline).map((h) => [
        `${"  ".repeat(Math.max(0, Number(h.level ?? 1) - 1))}${str(h.text)}`,
      ]),
      width,
    );
  } else {
    const text = str(answer.body);
    body = text.endsWith("\n") || text === "" ? text : `${text}\n`;
  }
  const note = answer.note ? `(${str(answer.note)})\n` : "";
  return `${head}${section}\n${body}${note}`;
}
