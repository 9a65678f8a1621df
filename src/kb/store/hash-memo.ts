/**
 * The content hash of a concept re-read unchanged, without hashing it again. Each entry keeps
 * the text it was computed from, and a hash is reused only when the text just read is EQUAL to
 * it: a file edited by anyone (the server, a person, a checkout), however quickly and whatever
 * its size or times, gets a fresh hash — there is no stat-based key that could go stale
 * (docs/decisions.md "A re-read concept's hash is reused only for the same text"). Comparing
 * two strings costs far less than canonicalizing the frontmatter and hashing.
 */
import { contentHash } from "../core/hash.js";

/** Texts longer than this are hashed every time (their comparison is not worth the memory). */
const MAX_TEXT_CHARS = 64 * 1024;
/** Characters all remembered texts may hold together (about 2× as many bytes). */
const MAX_TOTAL_CHARS = 8 * 1024 * 1024;

export class HashMemo {
  /** Path → the last text read there and its hash; Map order = least recently set first. */
  private readonly entries = new Map<string, { text: string; hash: string }>();
  private chars = 0;
  hashed = 0;

  /** contentHash(text), reused when `text` is what was last hashed for `path`. */
  hashOf(path: string, text: string): string {
    const known = this.entries.get(path);
    if (known !== undefined && known.text === text) return known.hash;
    const hash = contentHash(text);
    this.hashed++;
    if (known !== undefined) {
      this.entries.delete(path);
      this.chars -= known.text.length;
    }
    if (text.length <= MAX_TEXT_CHARS) {
      this.entries.set(path, { text, hash });
      this.chars += text.length;
      for (const [oldest, entry] of this.entries) {
        if (this.chars <= MAX_TOTAL_CHARS) break;
        this.entries.delete(oldest);
        this.chars -= entry.text.length;
      }
    }
    return hash;
  }
}
