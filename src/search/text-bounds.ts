/**
 * How much of a concept the index stores, and the folded copies the substring fallback matches
 * against. Pure. A concept body is indexed (word index, substring fallback, snippets) up to
 * MAX_INDEXED_BODY_CHARS only, so one huge file (a 50 MB log pasted as a concept) costs at most
 * that much in the index and in every query that touches it (docs/search.md).
 */

/** Characters (UTF-16 units) of a body that are indexed: 1 Mi, i.e. 1–3 MiB of UTF-8. */
export const MAX_INDEXED_BODY_CHARS = 1_048_576;

/**
 * Characters of a stored body a snippet is cut from: the opening for word hits, a window around
 * the match for substring hits. Bounds the per-hit work and memory of building snippets.
 */
export const SNIPPET_WINDOW_CHARS = 16_384;

/** Characters of context kept before a substring match when its window is cut from the body. */
export const SNIPPET_WINDOW_LEAD = 256;

/** The indexed prefix of a body (or its first `max` characters), never cutting a surrogate pair. */
export function boundedBody(body: string, max = MAX_INDEXED_BODY_CHARS): string {
  if (body.length <= max) return body;
  let end = max;
  const last = body.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return body.slice(0, end);
}

/**
 * Lower case without diacritics (combining marks removed), recomposed: `Café` → `cafe`, while
 * Hangul syllables stay syllables (NFD alone would leave them as jamo).
 */
export function foldText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .normalize("NFC")
    .toLowerCase();
}

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The folded copy stored for the substring fallback, or null when the text is pure ASCII: SQL
 * LIKE already ignores ASCII case, so such text matches a folded needle as it is and needs no
 * second copy (most KBs are mostly ASCII; this keeps the index from doubling in size).
 */
export function storedFold(text: string | null): string | null {
  if (text === null || !NON_ASCII.test(text)) return null;
  return foldText(text);
}
