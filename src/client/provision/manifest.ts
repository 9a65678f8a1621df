/**
 * Fetches the provisioning manifest of every bound KB over an open MCP session and hands back
 * only what survived the client's checks (manifest-shape.ts): valid shape, safe paths and names,
 * content hashes and revision recomputed and matched. Any failure throws: one bad KB fails the
 * whole sync, so nothing is written from a partly trusted answer.
 */
import { ClientError } from "../errors.js";
import type { McpSession } from "../mcp-session.js";
import { MANIFEST_LIMITS, type ManifestBudget, readManifest } from "./manifest-shape.js";
import type { KbManifest } from "./types.js";

export type { ManifestBudget };

export const MANIFEST_TOOL = "artifact_manifest";

/**
 * Upper bound on the answer's text before parsing it: the byte limit, base64's 4/3 and JSON's
 * escapes stay far below twice the decoded bytes for any real manifest.
 */
const MAX_ANSWER_CHARS = MANIFEST_LIMITS.maxTotalBytes * 2;

/**
 * The validated manifests of `kbs`, in order. On a routed session (`opts.routed`, one
 * connection bound to several KBs) each call names its KB (`{kb}`); otherwise the session is one
 * KB's own endpoint, `kbs` holds that one KB and the call takes no argument.
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
  opts: { routed: boolean; budget?: ManifestBudget },
): Promise<KbManifest[]> {
  if (!opts.routed && kbs.length > 1) {
    throw new Error("fetchManifests: a per-KB endpoint serves one KB; open one session per KB");
  }
  const budget: ManifestBudget = opts.budget ?? { artifacts: 0, bytes: 0 };
  const out: KbManifest[] = [];
  for (const kb of kbs) {
    const text = await session.callTool(MANIFEST_TOOL, opts.routed ? { kb } : {});
    if (text.length > MAX_ANSWER_CHARS) {
      throw new ClientError(
        "protocol",
        `KB ${kb}: the ${MANIFEST_TOOL} answer is over ${MAX_ANSWER_CHARS / 1024 / 1024} MiB of text (the client's limit); slim the KB's artifacts`,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ClientError(
        "protocol",
        `KB ${kb}: the ${MANIFEST_TOOL} answer is not JSON (${JSON.stringify(text.slice(0, 80))}); is the server a Cartographer server of this version?`,
      );
    }
    out.push(readManifest(kb, value, budget));
  }
  return out;
}
