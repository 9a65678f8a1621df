/** Maps a ConceptDoc to the values stored in the index. Pure. */
import type { ConceptDoc, FmScalar, FmValue } from "../kb/types.js";

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

/** Epoch ms of an ISO-8601 timestamp, null when unparsable. */
export function parseTimestamp(text: string): number | null {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}
