/**
 * The content hash every `if_match` compares against (DESIGN §4), and the raw-bytes hash of
 * assets and artifacts. Pure (node:crypto only). The one owner of this invariant (STYLE §3).
 */
import { createHash } from "node:crypto";
import { splitDocument } from "./frontmatter.js";
import { parseFrontmatterLines } from "./frontmatter-parse.js";
import { formatValue } from "./yaml-scalar.js";

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function stripLineEnds(text: string): string {
  return text
    .split("\n")
    .map((l) => l.replace(/[ \t]+$/, ""))
    .join("\n")
    .replace(/\n+$/, "");
}

const TIMESTAMP_LINE = /^timestamp[ \t]*:/;

/** Canonical frontmatter: keys sorted, comments dropped, `timestamp` dropped, one line per key. */
function canonicalFrontmatter(lines: string[]): string {
  try {
    const block = parseFrontmatterLines(lines, 2);
    return block.entries
      .filter((e) => e.key !== "timestamp")
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((e) => `${e.key}: ${formatValue(e.value)}`)
      .join("\n");
  } catch {
    // Unparseable frontmatter still gets a stable hash: its lines minus comments and timestamps.
    return lines.filter((l) => !TIMESTAMP_LINE.test(l) && !l.trim().startsWith("#")).join("\n");
  }
}

/**
 * sha256 hex of the normalized document: CRLF→LF; frontmatter canonical (sorted keys, no
 * comments, no `timestamp:`); trailing spaces/tabs stripped per line; trailing newlines
 * stripped from frontmatter and body; `---\n<fm>\n---\n<body>`, or the body alone.
 */
export function contentHash(text: string): string {
  let split: ReturnType<typeof splitDocument>;
  try {
    split = splitDocument(text);
  } catch {
    split = { fmLines: null, body: text.replace(/\r\n?/g, "\n") };
  }
  const body = stripLineEnds(split.body);
  if (split.fmLines === null) return sha256(body);
  const fm = stripLineEnds(canonicalFrontmatter(split.fmLines));
  return sha256(`---\n${fm}\n---\n${body}`);
}

/** sha256 hex of raw bytes (assets, artifacts). */
export function bytesHash(bytes: Uint8Array): string {
  return sha256(bytes);
}
