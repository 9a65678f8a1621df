/**
 * The content hash of hash.ts computed over text fed in pieces, in memory bounded by the longest
 * line (and the frontmatter block), never by the file: the index hashes a 50 MB concept without
 * holding it (docs/search.md "Very large concepts"). Pure (node:crypto only).
 *
 * It computes exactly contentHash(whole text) — a test feeds the Go vectors and edge cases split
 * at every position and compares — by applying the same steps per line:
 * - a leading BOM is dropped;
 * - the first line `---` (trailing whitespace ignored) opens a frontmatter block closed by the
 *   next `---`/`...` line; unclosed, the whole text is body;
 * - CRLF→LF removes one `\r` before each `\n`, and the body after a frontmatter block gets that
 *   pass twice (Go's `\r\r\n` → `\n`), so a line followed by `\n` loses up to 1 (2) trailing `\r`;
 * - then trailing spaces/tabs per line; trailing empty lines are dropped.
 */
import { createHash, type Hash } from "node:crypto";
import { trimBlanksEnd } from "./hash.js";
import { canonicalGoFrontmatter } from "./hash-frontmatter.js";

/** A frontmatter block still open after this many characters is hashed from the whole text. */
export const MAX_STREAMED_FRONTMATTER_CHARS = 1_048_576;

/** Thrown when the frontmatter block is longer than the stream hasher keeps (rare; read whole). */
export class FrontmatterTooLongError extends Error {
  constructor() {
    super(`frontmatter block longer than ${MAX_STREAMED_FRONTMATTER_CHARS} characters`);
    this.name = "FrontmatterTooLongError";
  }
}

/** An unfinished line longer than this is hashed up to its strippable tail (bounded memory). */
const CARRY_LIMIT = 65_536;

/** Incremental contentHash: update() with the text in order, then digest() once. */
export class ContentHashStream {
  private readonly hash: Hash = createHash("sha256");
  /** The unfinished last line of what was fed so far (only its strippable tail once flushed). */
  private carry = "";
  /** Part of the current line already hashed (it ends in a character no strip can remove). */
  private lineStarted = false;
  private lineIndex = 0;
  private first = true;
  /** "head": deciding whether a frontmatter block opens; "fm": inside it; "body": streaming. */
  private state: "head" | "fm" | "body" = "head";
  /** The raw lines of the open frontmatter block, the opening `---` included. */
  private fmLines: string[] = [];
  private fmChars = 0;
  /** CR passes of the body lines: 1 without frontmatter, 2 after a block. */
  private crPasses = 1;
  /** Newlines owed before the next non-empty body line (trailing empty lines are never paid). */
  private pendingNewlines = 0;

  update(text: string): this {
    if (text.length === 0) return this;
    let t = text;
    if (this.first) {
      this.first = false;
      if (t.charCodeAt(0) === 0xfeff) t = t.slice(1);
    }
    const parts = (this.carry + t).split("\n");
    this.carry = parts.pop() as string;
    for (const line of parts) this.line(line, false);
    if (this.carry.length > CARRY_LIMIT) {
      if (this.state === "head" && !/^---\s*$/.test(this.carry)) this.state = "body";
      if (this.state === "fm") throw new FrontmatterTooLongError();
      if (this.state === "body") this.flushCarry();
    }
    return this;
  }

  /** The sha256 hex; the stream is finished. */
  digest(): string {
    this.line(this.carry, true);
    this.carry = "";
    if (this.state !== "body") {
      // An unclosed block: the whole text is body (one CR pass), as hash.ts reads it.
      const lines = this.fmLines;
      this.fmLines = [];
      this.state = "body";
      this.crPasses = 1;
      this.lineIndex = 0;
      for (const [i, l] of lines.entries()) this.bodyLine(l, i === lines.length - 1);
    }
    return this.hash.digest("hex");
  }

  private line(raw: string, last: boolean): void {
    if (this.state === "body") {
      this.bodyLine(raw, last);
      return;
    }
    // Pass-1 form of a frontmatter-candidate line: one CR before the `\n` removed.
    const l = !last && raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (this.state === "head") {
      if (l.trimEnd() !== "---") {
        this.state = "body";
        this.bodyLine(raw, last);
        return;
      }
      this.state = "fm";
      this.keepFm(raw, last);
      return;
    }
    const trimmed = l.trimEnd();
    if (trimmed === "---" || trimmed === "...") {
      // Every kept line was followed by `\n`: its pass-1 form lost one trailing CR.
      const pass1 = this.fmLines.slice(1).map((f) => (f.endsWith("\r") ? f.slice(0, -1) : f));
      const fm = canonicalGoFrontmatter(pass1).split("\n");
      this.hash.update(`---\n${joinStripped(fm)}\n---\n`);
      this.fmLines = [];
      this.state = "body";
      this.crPasses = 2;
      this.lineIndex = 0;
      return;
    }
    this.keepFm(raw, last);
  }

  private keepFm(raw: string, last: boolean): void {
    // Kept raw: an unclosed block is re-read as body, which applies its own CR pass.
    this.fmLines.push(raw);
    this.fmChars += raw.length + 1;
    if (this.fmChars > MAX_STREAMED_FRONTMATTER_CHARS && !last) throw new FrontmatterTooLongError();
  }

  /** One complete body line (`last`: not followed by `\n`), or the rest of a flushed one. */
  private bodyLine(raw: string, last: boolean): void {
    let s = raw;
    if (!last) for (let i = 0; i < this.crPasses && s.endsWith("\r"); i++) s = s.slice(0, -1);
    s = trimBlanksEnd(s);
    this.emit(s);
    this.lineStarted = false;
    this.lineIndex++;
  }

  /** Hashes the current line's text up to its last character no strip can remove. */
  private flushCarry(): void {
    let cut = this.carry.length;
    for (let c = this.carry.charCodeAt(cut - 1); c === 32 || c === 9 || c === 13; ) {
      cut--;
      c = this.carry.charCodeAt(cut - 1);
    }
    if (cut === 0) return;
    this.emit(this.carry.slice(0, cut));
    this.lineStarted = true;
    this.carry = this.carry.slice(cut);
  }

  private emit(s: string): void {
    if (this.lineStarted) {
      this.hash.update(s);
      return;
    }
    if (this.lineIndex > 0) this.pendingNewlines++;
    if (s === "") return;
    if (this.pendingNewlines > 0) this.hash.update("\n".repeat(this.pendingNewlines));
    this.pendingNewlines = 0;
    this.hash.update(s);
  }
}

/** hash.ts's stripLineEnds over lines already split. */
function joinStripped(lines: string[]): string {
  return lines.map(trimBlanksEnd).join("\n").replace(/\n+$/, "");
}
