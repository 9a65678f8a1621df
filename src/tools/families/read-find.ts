/**
 * search (keyword, through the FTS index) and changes_since (git history), both filtered by the
 * caller's visibility before their limits (D118).
 */
import { KbError } from "../../common/errors.js";
import { parseTimestamp } from "../../search/index.js";
import { defineTool } from "../define.js";
import { enumOf, int, nonEmptyStr, opt } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import { visibleChanges } from "../support/change-visibility.js";

const SEARCH_DEFAULT_LIMIT = 10;
const SEARCH_MAX_LIMIT = 100;
const CHANGES_DEFAULT_LIMIT = 100;
const CHANGES_MAX_LIMIT = 1000;

/**
 * `<N>d`, `<N>h` (relative to now) or an ISO-8601 date/time, read like concept_list's bounds
 * (no zone = UTC). Throws `invalid_argument`.
 */
export function parseSince(since: string, now: Date): Date {
  const rel = /^(\d+)([dh])$/.exec(since.trim());
  if (rel) {
    const n = Number(rel[1]);
    const ms = rel[2] === "d" ? n * 86_400_000 : n * 3_600_000;
    return inRange(new Date(now.getTime() - ms), since);
  }
  const t = parseTimestamp(since.trim());
  if (t === null) {
    throw new KbError(
      "invalid_argument",
      `argument "since" must be an ISO time (2024-05-01T00:00:00Z) or <N>d / <N>h, got "${since}"`,
    );
  }
  return inRange(new Date(t), since);
}

/** Years a `since` may name: far wider than any git history, narrow enough for toISOString. */
const SINCE_MIN = Date.parse("0001-01-01T00:00:00Z"); // Date.UTC(1, …) would mean 1901
const SINCE_MAX = Date.UTC(9999, 11, 31, 23, 59, 59);

function inRange(d: Date, since: string): Date {
  const t = d.getTime();
  if (!Number.isFinite(t) || t < SINCE_MIN || t > SINCE_MAX) {
    throw new KbError(
      "invalid_argument",
      `argument "since" is out of range ("${since}"): give a time between years 1 and 9999, e.g. 30d or 2024-05-01`,
    );
  }
  return d;
}

const search = defineTool({
  name: "search",
  description:
    "Search concepts; results have id, title, type, snippet. mode keyword (default: word starts, the whole query as a substring when nothing else matches), semantic (meaning, by embeddings) or hybrid (both, rank-fused). scope = id prefix; limit defaults to 10. Errors: not_configured for semantic/hybrid when the server has no search.embeddings.",
  args: {
    query: nonEmptyStr(),
    scope: opt(nonEmptyStr("Id prefix, e.g. a map name")),
    limit: opt(int({ min: 1, max: SEARCH_MAX_LIMIT }), SEARCH_DEFAULT_LIMIT),
    mode: opt(enumOf(["keyword", "semantic", "hybrid"]), "keyword"),
  },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: ["scope"],
  handler: async (args, ctx) => {
    const { query, scope, limit, mode } = args;
    const { embeddings } = ctx.runtime;
    if (mode !== "keyword" && !embeddings) {
      throw new KbError(
        "not_configured",
        `mode ${mode} needs an embedding provider: set search.embeddings {provider, url, model} in the server config (docs/search.md), or use mode keyword`,
      );
    }
    if (query.trim() === "") {
      throw new KbError(
        "invalid_argument",
        'argument "query" must contain a word to search for, got only whitespace',
      );
    }
    // A build under way (docs/decisions.md "A search (and `concept_list`) during a build waits"):
    // wait up to 2 s, then answer from what is indexed, saying so.
    const building = await ctx.runtime.awaitIndex();
    const request = { query, scope, limit, visibility: ctx.visibility };
    // Keyword: the index falls back to the whole query as a substring itself (CJK, fragments).
    // Semantic/hybrid: visibility filters the vectors before ranking too (vector-store.ts, D118).
    const found =
      mode === "keyword" || !embeddings
        ? ctx.runtime.index.search(request)
        : await embeddings.search(request, mode);
    return building ? { ...found, index: building } : found;
  },
});

const changesSince = defineTool({
  name: "changes_since",
  description:
    'Concepts changed in git since a time (ISO, or "7d" / "12h"), newest first: id, change, last_time, authors, subjects.',
  args: {
    since: nonEmptyStr('ISO time, "<N>d" or "<N>h"'),
    limit: opt(int({ min: 1, max: CHANGES_MAX_LIMIT }), CHANGES_DEFAULT_LIMIT),
  },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "collection",
  auditFields: [],
  // git log over the window plus a type look-up per changed concept: a pass (pass-queue.ts).
  wholeKbPass: () => true,
  handler: async (args, ctx) => {
    const since = parseSince(args.since, ctx.now());
    const { limit } = args;
    const { store } = ctx.runtime;
    const visible = await visibleChanges(store, ctx.visibility, await store.changesSince(since));
    return {
      since: since.toISOString(),
      changes: visible.slice(0, limit),
      total: visible.length,
      truncated: visible.length > limit,
    };
  },
});

export const findTools: ToolSpec[] = [search, changesSince];
