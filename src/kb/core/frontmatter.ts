/**
 * Documents = optional frontmatter block + Markdown body. Parsing and deterministic
 * serialization (existing key order and comments kept, new keys appended). Pure.
 */
import { KbError } from "../../common/errors.js";
import { type FmBlock, parseFrontmatterLines } from "./frontmatter-parse.js";
import type { Frontmatter } from "./types.js";
import { formatValue, sameValue } from "./yaml-scalar.js";

export interface ParsedDocument {
  frontmatter: Frontmatter;
  body: string;
  hasFrontmatter: boolean;
}

interface SplitDocument {
  /** Lines between the delimiters, or null without frontmatter. */
  fmLines: string[] | null;
  body: string;
}

/** CRLF → LF and a leading BOM dropped: every reader sees the same text. */
export function normalizeNewlines(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
}

/** Splits the `---` block from the body; throws `invalid_frontmatter` on an unclosed block. */
export function splitDocument(text: string): SplitDocument {
  const t = normalizeNewlines(text);
  const lines = t.split("\n");
  if ((lines[0] ?? "").trimEnd() !== "---") return { fmLines: null, body: t };
  for (let i = 1; i < lines.length; i++) {
    const l = (lines[i] as string).trimEnd();
    if (l === "---" || l === "...") {
      return { fmLines: lines.slice(1, i), body: lines.slice(i + 1).join("\n") };
    }
  }
  throw new KbError(
    "invalid_frontmatter",
    "frontmatter line 1: the --- block is never closed: add a closing --- line",
    { line: 1 },
  );
}

function blockToObject(block: FmBlock): Frontmatter {
  const fm: Frontmatter = {};
  for (const e of block.entries) fm[e.key] = e.value;
  return fm;
}

/** Parses a document. Throws `invalid_frontmatter` naming the line. */
export function parseDocument(text: string): ParsedDocument {
  const split = splitDocument(text);
  if (split.fmLines === null) return { frontmatter: {}, body: split.body, hasFrontmatter: false };
  const block = parseFrontmatterLines(split.fmLines, 2);
  return { frontmatter: blockToObject(block), body: split.body, hasFrontmatter: true };
}

/** Parsed block with raw lines (for serialization that preserves comments and formatting). */
export function parseFrontmatterBlock(text: string): FmBlock | null {
  const split = splitDocument(text);
  return split.fmLines === null ? null : parseFrontmatterLines(split.fmLines, 2);
}

/**
 * Serializes deterministically: `---\n<fm>\n---\n<body>`. With `previousText`, keys keep their
 * old order and untouched values keep their exact lines and leading comments; keys that
 * disappeared lose their comments; new keys are appended in object order.
 */
export function serializeDocument(
  frontmatter: Frontmatter,
  body: string,
  previousText?: string,
): string {
  const out: string[] = [];
  const written = new Set<string>();
  let previous: FmBlock | null = null;
  if (previousText !== undefined) {
    try {
      previous = parseFrontmatterBlock(previousText);
    } catch {
      previous = null; // An unparseable old block cannot lend its formatting.
    }
  }
  if (previous) {
    for (const e of previous.entries) {
      if (!(e.key in frontmatter)) continue;
      const value = frontmatter[e.key];
      if (value === undefined) continue;
      out.push(...e.leading);
      if (sameValue(e.value, value)) out.push(...e.raw);
      else out.push(`${e.key}: ${formatValue(value)}`);
      written.add(e.key);
    }
    if (previous.trailing.some((l) => l.trim() !== "")) out.push(...previous.trailing);
  }
  for (const [key, value] of Object.entries(frontmatter)) {
    if (written.has(key) || value === undefined) continue;
    out.push(`${key}: ${formatValue(value)}`);
  }
  const text = normalizeNewlines(body);
  const ending = text === "" || text.endsWith("\n") ? "" : "\n";
  return `---\n${out.join("\n")}${out.length ? "\n" : ""}---\n${text}${ending}`;
}

/** Returns the non-empty string `type`; throws `invalid_frontmatter` otherwise. */
export function requireType(fm: Frontmatter): string {
  const t = fm.type;
  if (typeof t !== "string" || t.trim() === "") {
    throw new KbError(
      "invalid_frontmatter",
      "frontmatter.type is required and must be a non-empty string (e.g. type: note)",
    );
  }
  return t;
}
