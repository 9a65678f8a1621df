/** Maps a ConceptDoc to the values stored in the index. Pure. */
import type { ConceptDoc, FmScalar, FmValue } from "../kb/core/types.js";
import { boundedBody, storedFold } from "./text-bounds.js";

export interface FileStat {
  mtimeMs: number;
  size: number;
}

export interface ConceptRow {
  id: string;
  path: string;
  map: string | null;
  journal: string | null;
  type: string;
  title: string | null;
  tags: string;
  hash: string;
  frontmatter: string;
  timestamp: string | null;
  ts_ms: number | null;
  mtime_ms: number | null;
  size: number | null;
  stat_at_ms: number | null;
}

export function conceptRow(doc: ConceptDoc, stat: FileStat | null, now: number): ConceptRow {
  const ts = doc.frontmatter.timestamp;
  const timestamp = typeof ts === "string" && ts.trim() !== "" ? ts.trim() : null;
  return {
    id: doc.id,
    path: doc.path,
    map: doc.map,
    journal: doc.journal,
    type: doc.type,
    title: doc.title,
    tags: listOf(doc.frontmatter.tags).map(scalarText).join(" "),
    hash: doc.hash,
    frontmatter: JSON.stringify(doc.frontmatter),
    timestamp,
    ts_ms: timestamp === null ? null : parseTimestamp(timestamp),
    mtime_ms: stat?.mtimeMs ?? null,
    size: stat?.size ?? null,
    stat_at_ms: stat ? now : null,
  };
}

/**
 * Everything insertConceptRow writes for a document but its file stat: computed just before the
 * insert, or by a first build's read worker (build-reader.ts) so the main thread only runs the
 * statements. `row`'s stat columns are null until the insert fills them.
 */
export interface PreparedRow {
  row: ConceptRow;
  /** The indexed prefix of the body (text-bounds.ts). */
  body: string;
  titleFold: string | null;
  bodyFold: string | null;
  fields: Array<[string, string]>;
}

export function prepareRow(doc: ConceptDoc): PreparedRow {
  const row = conceptRow(doc, null, 0);
  const body = boundedBody(doc.body);
  return {
    row,
    body,
    titleFold: storedFold(row.title),
    bodyFold: storedFold(body),
    fields: fieldPairs(doc),
  };
}

/** One `[key, value]` per scalar of the frontmatter (list elements separately). */
export function fieldPairs(doc: ConceptDoc): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(doc.frontmatter)) {
    for (const v of listOf(value)) pairs.push([key, scalarText(v)]);
  }
  return pairs;
}

function listOf(value: FmValue | undefined): FmScalar[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export function scalarText(v: FmScalar): string {
  return v === null ? "" : String(v);
}

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Epoch ms of an ISO-8601 date (`2024-05-01`) or date-time (`2024-05-01T10:00[:00[.000]]`, zone
 * `Z`, `±hh:mm`, `±hhmm` or `±hh`); null for anything else, impossible dates included. Without a
 * zone the time is UTC, so bounds and stored timestamps never depend on the server's time zone
 * (Date.parse would read them as local time, and accepts prose like `May 3`).
 */
export function parseTimestamp(text: string): number | null {
  const m = ISO_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  const millis = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const ms = Date.UTC(year as number, (month as number) - 1, day, hour, minute, second, millis);
  const check = new Date(ms);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== (month as number) - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  ) {
    return null;
  }
  return ms - zoneOffsetMs(m[8]);
}

/** Offset east of UTC in ms (`+02:00` → 2 h); 0 for `Z` or no zone. */
function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone === "Z" || zone === "z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || 0);
  return sign * (hours * 60 + minutes) * 60_000;
}
