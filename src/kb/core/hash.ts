/**
 * The content hash every `if_match` compares against (design.md §4), identical to the Go
 * implementation's, and the raw-bytes hash of assets and artifacts. Pure (node:crypto only).
 * The one owner of this invariant (design.md P3); hash-frontmatter.ts owns the canonical form.
 */
import { createHash } from "node:crypto";
import { canonicalGoFrontmatter } from "./hash-frontmatter.js";

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The line without its trailing spaces/tabs. A loop, not `/[ \t]+$/`: that regex is quadratic on
 * a long run of blanks followed by other text (1 MB of spaces then `x` took about an hour).
 */
export function trimBlanksEnd(line: string): string {
  let end = line.length;
  for (let c = line.charCodeAt(end - 1); c === 32 || c === 9; c = line.charCodeAt(end - 1)) end--;
  return end === line.length ? line : line.slice(0, end);
}

/** Trailing spaces/tabs stripped per line, trailing newlines stripped. */
function stripLineEnds(text: string): string {
  // Most text has no blank at a line end: only the trailing newlines go (index build cost).
  const trimmed = hasBlankAtLineEnd(text) ? text.split("\n").map(trimBlanksEnd).join("\n") : text;
  let end = trimmed.length;
  while (end > 0 && trimmed.charCodeAt(end - 1) === 10) end--;
  return end === trimmed.length ? trimmed : trimmed.slice(0, end);
}

/** A space or tab ends a line or the text (string searches: a regex tried every blank of prose). */
function hasBlankAtLineEnd(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last === 32 || last === 9 || text.includes(" \n") || text.includes("\t\n");
}

/** CRLF → LF in one pass, as Go's `strings.ReplaceAll`: a lone CR stays (`\r\r\n` → `\r\n`). */
function crlfToLf(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n/g, "\n") : text;
}

/** The `---` block's lines and the body after it, or null lines without (or with an unclosed) block. */
function split(text: string): { fmLines: string[] | null; body: string } {
  const t = crlfToLf(text.replace(/^\uFEFF/, ""));
  // Line by line up to the closing delimiter only: the body is never split into lines here.
  let end = t.indexOf("\n");
  if ((end === -1 ? t : t.slice(0, end)).trimEnd() !== "---") return { fmLines: null, body: t };
  const fmLines: string[] = [];
  while (end !== -1) {
    const start = end + 1;
    end = t.indexOf("\n", start);
    const line = end === -1 ? t.slice(start) : t.slice(start, end);
    const l = line.trimEnd();
    if (l === "---" || l === "...") {
      // Go normalizes the body it splits off once more: a `\r\r\n` there ends as `\n`.
      return { fmLines, body: crlfToLf(end === -1 ? "" : t.slice(end + 1)) };
    }
    fmLines.push(line);
  }
  return { fmLines: null, body: t };
}

/**
 * sha256 hex of the normalized document: CRLF→LF; frontmatter canonical (Go's reading: values
 * as written, each key once, sorted, no comments, Go's quoting, no `timestamp:` line); trailing
 * spaces/tabs stripped per line; trailing newlines stripped from frontmatter and body;
 * `---\n<fm>\n---\n<body>`, or the body alone without frontmatter.
 */
export function contentHash(text: string): string {
  const { fmLines, body } = split(text);
  if (fmLines === null) return sha256(stripLineEnds(body));
  const fm = stripLineEnds(canonicalGoFrontmatter(fmLines));
  return sha256(`---\n${fm}\n---\n${stripLineEnds(body)}`);
}

/** sha256 hex of raw bytes (assets, artifacts). */
export function bytesHash(bytes: Uint8Array): string {
  return sha256(bytes);
}
