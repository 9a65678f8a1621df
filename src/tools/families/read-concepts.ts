/**
 * concept_read and concept_list: one concept in full, by section or as an outline; a filtered
 * listing through the search index (visibility applied inside the query, before the limit).
 */

import { KbError } from "../../common/errors.js";
import type { ConceptRead } from "../../kb/core/api.js";
import { validateId } from "../../kb/core/ids.js";
import { extractSection, outline } from "../../kb/core/markdown.js";
import type { ConceptDoc } from "../../kb/core/types.js";
import { MAX_CONCEPT_BYTES } from "../../kb/store/index-read.js";
import { notFound } from "../../kb/store/store-read.js";
import type { ListResult } from "../../search/api.js";
import { boundedBody } from "../../search/text-bounds.js";
import { defineTool } from "../define.js";
import { arr, bool, int, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";

/** Bodies above this many bytes are answered with their outline unless the caller asks (D-read-60k). */
export const LARGE_BODY_BYTES = 60 * 1024;
/** How many headings a `section` miss lists. */
const MAX_LISTED_HEADINGS = 50;
export const CONCEPT_LIST_DEFAULT_LIMIT = 500;
const CONCEPT_LIST_MAX_LIMIT = 5000;

function headingTexts(body: string): string[] {
  return outline(body).map((h) => h.text);
}

function header(doc: ConceptDoc): Record<string, unknown> {
  return {
    id: doc.id,
    hash: doc.hash,
    path: doc.path,
    type: doc.type,
    map: doc.map,
    journal: doc.journal,
    expanded: doc.expanded,
    frontmatter: doc.frontmatter,
  };
}

const conceptRead = defineTool({
  name: "concept_read",
  contentHashAlias: true,
  description:
    "Read a concept: {id, hash, frontmatter, body}. section returns one heading's text, outline only headings, full forces bodies over 60 KB (otherwise outline). Errors: not_found, invalid_id.",
  args: {
    id: nonEmptyStr(),
    section: opt(str("Heading text to return")),
    outline: opt(bool()),
    full: opt(bool()),
  },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "exact",
  auditFields: ["id"],
  targets: (args) => (typeof args.id === "string" ? [{ id: args.id, write: false }] : []),
  handler: async (args, ctx) => {
    const { id, section } = args;
    validateId(id);
    // One resolution and one read (docs/decisions.md "one pass per request").
    const read = await (ctx.reads
      ? ctx.reads.concept(id)
      : ctx.runtime.store.readConceptFile(id, MAX_CONCEPT_BYTES));
    if (!read) throw notFound(id);
    if (read.truncated) return hugeConcept(read, args);
    const { doc } = read;
    if (section !== undefined) {
      const text = extractSection(doc.body, section);
      if (text === null) {
        const headings = headingTexts(doc.body);
        const listed = headings.slice(0, MAX_LISTED_HEADINGS);
        const more =
          headings.length > listed.length ? ` (+${headings.length - listed.length} more)` : "";
        throw new KbError(
          "not_found",
          `section "${section}" not in ${id}; headings: ${listed.length > 0 ? listed.join(" | ") : "(none)"}${more}`,
          { headings: listed },
        );
      }
      return { ...header(doc), section, body: text };
    }
    if (args.outline) return { ...header(doc), outline: outline(doc.body) };
    const bytes = Buffer.byteLength(doc.body, "utf8");
    if (bytes > LARGE_BODY_BYTES && !args.full) {
      return {
        ...header(doc),
        outline: outline(doc.body),
        note: `body is ${bytes} bytes (> 60 KB): outline only; read one part with section, or pass full: true`,
      };
    }
    return { ...header(doc), body: doc.body };
  },
});

/**
 * A concept file over MAX_CONCEPT_BYTES, answered in bounded memory: header (the hash is
 * the whole file's, a valid if_match) and the body's first LARGE_BODY_BYTES characters; section,
 * outline and full would need the whole text: `too_large`.
 */
function hugeConcept(
  { doc, bytes }: ConceptRead,
  args: { id: string; section?: string; outline?: boolean; full?: boolean },
): Record<string, unknown> {
  if (args.section !== undefined || args.outline || args.full) {
    throw new KbError(
      "too_large",
      `concept "${args.id}" is ${bytes} bytes, over the ${MAX_CONCEPT_BYTES}-byte limit for section, outline and full reads: read it without them for its opening, or split it into smaller concepts`,
      { id: args.id, bytes, limit: MAX_CONCEPT_BYTES },
    );
  }
  return {
    ...header(doc),
    body: boundedBody(doc.body, LARGE_BODY_BYTES),
    truncated: true,
    bytes,
    note: `file is ${bytes} bytes (> ${MAX_CONCEPT_BYTES}): the body's first ${LARGE_BODY_BYTES} characters only; section, outline and full are refused (too_large)`,
  };
}

const conceptList = defineTool({
  name: "concept_list",
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { scope: "prefix" },
  description:
    "List concepts {items, total, truncated} in id order, filtered by prefix, map, type, where (key=value, key!=value) and since/until on the frontmatter timestamp; from starts at that id (ids ≥ from: page with the id after a page's last). limit defaults to 500.",
  args: {
    prefix: opt(nonEmptyStr()),
    map: opt(nonEmptyStr()),
    type: opt(nonEmptyStr()),
    where: opt(arr(str())),
    since: opt(str("ISO time, inclusive")),
    until: opt(str("ISO time, inclusive")),
    from: opt(nonEmptyStr("Start at this id (ids ≥ from, in id order): keyset paging")),
    limit: opt(int({ min: 1, max: CONCEPT_LIST_MAX_LIMIT }), CONCEPT_LIST_DEFAULT_LIMIT),
  },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: [],
  // A page past the default is a walk over much of the index: it takes a pass slot.
  wholeKbPass: (args) => typeof args.limit === "number" && args.limit > CONCEPT_LIST_DEFAULT_LIMIT,
  handler: async (args, ctx) => {
    const { limit, type, map } = args;
    const where = [...(args.where ?? [])];
    if (type) where.push(`type=${type}`);
    let prefix = args.prefix;
    if (map) {
      // A map's concepts are exactly the ids under its folder, so `map` narrows the prefix.
      if (prefix && prefix !== map && !prefix.startsWith(`${map}/`)) {
        const empty: ListResult = { items: [], total: 0, truncated: false };
        return empty;
      }
      prefix = prefix ?? map;
    }
    const building = await ctx.runtime.awaitIndex(); // as search: partial while building
    const page = ctx.runtime.index.list({
      where,
      since: args.since,
      until: args.until,
      prefix,
      ...(args.from !== undefined ? { from: args.from } : {}),
      limit,
      visibility: ctx.visibility,
    });
    return building ? { ...page, index: building } : page;
  },
});

export const conceptReadTools: ToolSpec[] = [conceptRead, conceptList];
