/**
 * Fetches the provisioning manifest of every bound KB over an open MCP session and hands back
 * only what survived the client's checks (manifest-shape.ts): valid shape, safe paths and names,
 * content hashes and revision recomputed and matched. Any failure throws: one bad KB fails the
 * whole sync, so nothing is written from a partly trusted answer.
 */
import { BadManifestError, ToolError } from "../errors.js";
import type { McpSession } from "../mcp-session.js";
import type { ManifestCache } from "./manifest-cache.js";
import { MANIFEST_LIMITS, type ManifestBudget, readManifest } from "./manifest-shape.js";
import type { KbManifest } from "./types.js";

export type { ManifestBudget };

export const MANIFEST_TOOL = "artifact_manifest";

/**
 * Upper bound on the answer's text before parsing it: the byte limit, base64's 4/3 and JSON's
 * escapes stay far below twice the decoded bytes for any real manifest.
 */
const MAX_ANSWER_CHARS = MANIFEST_LIMITS.maxTotalBytes * 2;

/** Where a run keeps the last full answers (manifest-cache.ts) and the URL the session reaches. */
export interface ManifestCacheUse {
  store: ManifestCache;
  url: string;
  /**
   * Full answers to keep, filled by fetchManifests; the caller writes them (`store.write`) once
   * the trust gate has passed, so a refused sync writes nothing, the cache included.
   */
  toWrite: { kb: string; text: string }[];
}

/**
 * The validated manifests of `kbs`, in order. On a routed session (`opts.routed`, one
 * connection bound to several KBs) each call names its KB (`{kb}`); otherwise the session is one
 * KB's own endpoint, `kbs` holds that one KB and the call takes no argument.
 *
 * With `opts.cache`, a KB whose last full answer is cached is asked with `known_revision`; on
 * `unchanged` the cached answer is validated exactly like a fresh one (hashes and revision
 * recomputed from its bytes, which must give the revision the server just confirmed) and used;
 * a cache that fails that is ignored and the KB fetched in full. A server older than
 * `known_revision` refuses the argument: the KB is then fetched in full, and so is every later KB
 * of the session. A full answer whose revision differs from the cached one is queued in
 * `opts.cache.toWrite` for the caller to keep.
 *
 * Throws: `protocol` ClientError for an answer that is not JSON or is malformed (names the KB
 * and the field) or over the limits (MANIFEST_LIMITS: 5,000 artifacts, 64 MiB of files over all
 * KBs of the call); `integrity` for a content hash or revision that does not match the bytes
 * received; the session's own ToolError / ProtocolError / ServerUnreachableError unchanged
 * (an older server without `artifact_manifest` answers a ToolError).
 *
 * `opts.budget`: pass one object to every call of a run (several sessions) so the limits hold
 * over the whole run; by default they hold over this call.
 */
export async function fetchManifests(
  session: McpSession,
  kbs: string[],
  opts: { routed: boolean; budget?: ManifestBudget; cache?: ManifestCacheUse },
): Promise<KbManifest[]> {
  if (!opts.routed && kbs.length > 1) {
    throw new Error("fetchManifests: a per-KB endpoint serves one KB; open one session per KB");
  }
  const budget: ManifestBudget = opts.budget ?? { artifacts: 0, bytes: 0 };
  const out: KbManifest[] = [];
  let knowsRevisions = true;
  for (const kb of kbs) {
    const base = opts.routed ? { kb } : {};
    const cached = opts.cache ? await cachedAnswer(opts.cache, kb) : null;
    let cachedRevision = cached?.revision ?? null;
    let text: string | null = null;
    if (cached && knowsRevisions) {
      try {
        text = await session.callTool(MANIFEST_TOOL, { ...base, known_revision: cached.revision });
      } catch (err) {
        if (!(err instanceof ToolError && err.text.includes(KNOWN_REVISION)))
          throw forbiddenNamed(err, kb, kbs);
        knowsRevisions = false; // an older server: full answers from here on
      }
      if (text !== null) {
        const value = parseAnswer(kb, text);
        if (isUnchanged(kb, value, cached.revision)) {
          const fromCache = validCached(kb, cached.value, budget);
          if (fromCache) {
            out.push(fromCache);
            continue;
          }
          text = null; // the cache does not hold what the server confirmed: fetch it all
          cachedRevision = null;
        }
      }
    }
    text ??= await session.callTool(MANIFEST_TOOL, base).catch((err) => {
      throw forbiddenNamed(err, kb, kbs);
    });
    const manifest = readManifest(kb, parseAnswer(kb, text), budget);
    out.push(manifest);
    if (opts.cache && manifest.revision !== cachedRevision) opts.cache.toWrite.push({ kb, text });
  }
  return out;
}

const KNOWN_REVISION = "known_revision";

/**
 * A `forbidden` answer for one KB of several (a token that may read only some of the bound
 * KBs) names that KB and the fix; any other error passes unchanged.
 */
function forbiddenNamed(err: unknown, kb: string, kbs: readonly string[]): unknown {
  if (!(err instanceof ToolError) || !/^forbidden\b/.test(err.text)) return err;
  const others = kbs.filter((k) => k !== kb);
  const fix =
    others.length > 0
      ? `bind only the KBs it may read (cartographer connect <provider> --kbs ${others.join(",")}, leaving ${kb} out) or use a token that may read KB ${kb}`
      : `use a token that may read KB ${kb}, or bind other KBs with --kbs`;
  return new ToolError(MANIFEST_TOOL, `forbidden: the token may not read KB ${kb}; ${fix}`);
}

/** The answer's JSON, within the client's size limit. */
function parseAnswer(kb: string, text: string): unknown {
  if (text.length > MAX_ANSWER_CHARS) {
    throw new BadManifestError(
      `KB ${kb}: the ${MANIFEST_TOOL} answer is over ${MAX_ANSWER_CHARS / 1024 / 1024} MiB of text (the client's limit); slim the KB's artifacts`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new BadManifestError(
      `KB ${kb}: the ${MANIFEST_TOOL} answer is not JSON (${JSON.stringify(text.slice(0, 80))}); is the server a Cartographer server of this version?`,
    );
  }
}

/** True for `{kb, revision: known, unchanged: true}`; an `unchanged` of anything else is refused. */
function isUnchanged(kb: string, value: unknown, known: string): boolean {
  const o = value as { kb?: unknown; revision?: unknown; unchanged?: unknown } | null;
  if (typeof o !== "object" || o === null || o.unchanged === undefined) return false;
  if (o.unchanged !== true || o.kb !== kb || o.revision !== known) {
    throw new BadManifestError(
      `KB ${kb}: the ${MANIFEST_TOOL} answer says unchanged for a revision the client did not send; is the server a Cartographer server of this version?`,
    );
  }
  return true;
}

/** The cached answer of `kb` with its claimed revision, or null (none, not JSON, no revision). */
async function cachedAnswer(
  cache: ManifestCacheUse,
  kb: string,
): Promise<{ value: unknown; revision: string } | null> {
  const text = await cache.store.read(cache.url, kb);
  if (text === null || text.length > MAX_ANSWER_CHARS) return null;
  try {
    const value: unknown = JSON.parse(text);
    const revision = (value as { revision?: unknown } | null)?.revision;
    return typeof revision === "string" && /^[0-9a-f]{64}$/.test(revision)
      ? { value, revision }
      : null;
  } catch {
    return null;
  }
}

/**
 * The cached answer validated like a fresh one, or null when it fails (a corrupt or edited
 * cache). readManifest recomputes the revision from the bytes and refuses a mismatch, so what
 * comes back is the revision the server confirmed. The run's budget is charged only on success.
 */
function validCached(kb: string, value: unknown, budget: ManifestBudget): KbManifest | null {
  const scratch = { ...budget };
  try {
    const manifest = readManifest(kb, value, scratch);
    Object.assign(budget, scratch);
    return manifest;
  } catch {
    return null;
  }
}
