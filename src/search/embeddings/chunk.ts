/**
 * Cutting a concept into the texts that are embedded: one chunk per heading section (the text
 * before the first heading is a section too), long sections cut into windows, each prefixed
 * with the concept's title and the section heading so a chunk carries its context. A chunk is
 * keyed by the sha256 of (vector space, text): unchanged text is never embedded twice, a
 * model change never reuses a vector. Pure.
 */
import { createHash } from "node:crypto";

/** Characters of section text per chunk (~500 tokens: inside every common model's window). */
export const CHUNK_CHARS = 2_000;
/** Chunks per concept at most: a huge concept costs a bounded number of provider calls. */
export const MAX_CHUNKS_PER_CONCEPT = 64;

export interface Chunk {
  /** sha256 hex of space + text: the vector's key. */
  hash: string;
  /** What is embedded: title, heading and the section text. */
  text: string;
  /** Offset of the section text in the body (a snippet is cut from there). */
  start: number;
}

const HEADING = /^#{1,6}[ \t]+(.*)$/;
const FENCE = /^(```|~~~)/;

export function chunkConcept(space: string, title: string | null, body: string): Chunk[] {
  const sections = splitSections(body);
  const chunks: Chunk[] = [];
  const head = title?.trim() ?? "";
  for (const s of sections) {
    // An empty section (a bare heading) still yields its one chunk: the heading is text too.
    for (let at = 0; at === 0 || at < s.text.length; at += CHUNK_CHARS) {
      const piece = s.text.slice(at, at + CHUNK_CHARS).trim();
      const text = [head, s.heading, piece].filter((x) => x !== "").join("\n");
      if (text !== "") chunks.push({ hash: chunkHash(space, text), text, start: s.start + at });
      if (chunks.length >= MAX_CHUNKS_PER_CONCEPT) return chunks;
    }
  }
  if (chunks.length === 0 && head !== "")
    chunks.push({ hash: chunkHash(space, head), text: head, start: 0 });
  return chunks;
}

export function chunkHash(space: string, text: string): string {
  return createHash("sha256").update(space).update("\0").update(text).digest("hex");
}

interface Section {
  heading: string;
  text: string;
  start: number;
}

/** ATX headings outside fenced code blocks start a section. */
function splitSections(body: string): Section[] {
  const sections: Section[] = [];
  let current: Section = { heading: "", text: "", start: 0 };
  let inFence = false;
  let offset = 0;
  for (const line of body.split("\n")) {
    const next = offset + line.length + 1;
    if (FENCE.test(line.trimStart())) inFence = !inFence;
    const m = inFence ? null : HEADING.exec(line);
    if (m) {
      if (current.text.trim() !== "" || current.heading !== "") sections.push(current);
      current = { heading: (m[1] ?? "").trim(), text: "", start: next };
    } else {
      current.text += `${line}\n`;
    }
    offset = next;
  }
  if (current.text.trim() !== "" || current.heading !== "") sections.push(current);
  return sections;
}
