/**
 * Which surface an MCP path names (design.md §6, D288). Pure: path + query + mounted names in,
 * a target or an HTTP error out.
 *
 *   /mcp            one KB → it; 2+ → ?kb= required (400 naming them); unknown → 404
 *   /mcp/<name>     that KB; a conflicting ?kb= → 400; unknown → 404
 *   /mcp/routed     ?kbs=a,b binds (narrowing only); absent = all; unknown → 400; ?kb= → 400
 *   any             ?kb= or ?kbs= repeated → 400 (never first-value-wins); ?kbs= off /mcp/routed → 400
 *   a name in another case finds its KB when only one matches ignoring case (kb/kb-name.ts)
 *   a KB that could not be opened (unavailable), wherever it is named → 503 with its reason
 */
import { resolveKbName } from "../kb/core/kb-name.js";

export const MCP_PATH = "/mcp";
export const ROUTED_PATH = "/mcp/routed";

export type McpTarget =
  | {
      kind: "kb";
      kb: string /** true for /mcp/<name> and /mcp?kb= (serverInfo naming). */;
      perKb: true;
    }
  | { kind: "routed"; kbs: string[] };

export type RouteResult =
  | { ok: true; target: McpTarget }
  | { ok: false; status: 400 | 404 | 503; message: string };

/** True when `pathname` is an MCP endpoint path (whatever its query). */
export function isMcpPath(pathname: string): boolean {
  const p = trimSlash(pathname);
  return p === MCP_PATH || p.startsWith(`${MCP_PATH}/`);
}

export function resolveMcpRoute(
  pathname: string,
  query: URLSearchParams,
  mounted: readonly string[],
  unavailable: (name: string) => string | undefined = () => undefined,
): RouteResult {
  const p = trimSlash(pathname);
  const down = (name: string): RouteResult | null => {
    const reason = unavailable(name);
    return reason === undefined
      ? null
      : {
          ok: false,
          status: 503,
          message: `KB ${JSON.stringify(name)} is unavailable: ${reason}; the other KBs are served`,
        };
  };
  // One channel, one value: `?kb=a&kb=b` must not silently mean `a` (URLSearchParams.get).
  for (const param of ["kb", "kbs"]) {
    const count = query.getAll(param).length;
    if (count > 1) {
      return {
        ok: false,
        status: 400,
        message: `?${param}= given ${count} times: give it once${param === "kbs" ? ", as a comma list (?kbs=a,b)" : ""}`,
      };
    }
  }
  const kbParam = query.get("kb");
  const list = mounted.join(", ") || "(none)";
  if (p === ROUTED_PATH) {
    if (mounted.length === 0) return { ok: false, status: 404, message: "no KB is mounted" };
    if (kbParam !== null) {
      return {
        ok: false,
        status: 400,
        message: "?kb= is not accepted on /mcp/routed: bind KBs with ?kbs=a,b and pass kb per call",
      };
    }
    const kbsParam = query.get("kbs");
    if (kbsParam === null) return { ok: true, target: { kind: "routed", kbs: [...mounted] } };
    const names = kbsParam
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")
      .map((s) => resolveKbName(s, mounted) ?? s);
    if (names.length === 0)
      return { ok: false, status: 400, message: `?kbs= names no KB; mounted KBs: ${list}` };
    for (const name of names) {
      const refusal = down(name);
      if (refusal) return refusal;
    }
    const unknown = names.find((n) => !mounted.includes(n));
    if (unknown !== undefined) {
      return {
        ok: false,
        status: 400,
        message: `unknown KB ${JSON.stringify(unknown)} in ?kbs=; mounted KBs: ${list}`,
      };
    }
    return { ok: true, target: { kind: "routed", kbs: [...new Set(names)] } };
  }
  if (query.get("kbs") !== null) {
    // A binding only means something on the routed mount; ignoring it would hide a mistake.
    return {
      ok: false,
      status: 400,
      message:
        "?kbs= binds the routed mount only: use /mcp/routed?kbs=a,b, or name one KB with /mcp/<name>",
    };
  }
  if (p === MCP_PATH) {
    if (kbParam === null) {
      if (mounted.length === 1)
        return { ok: true, target: { kind: "kb", kb: mounted[0] as string, perKb: true } };
      if (mounted.length === 0) return { ok: false, status: 404, message: "no KB is mounted" };
      return {
        ok: false,
        status: 400,
        message: `?kb= is required with several KBs mounted: ${list}`,
      };
    }
    const refusal = down(kbParam);
    if (refusal) return refusal;
    const kb = resolveKbName(kbParam, mounted);
    if (kb === null)
      return {
        ok: false,
        status: 404,
        message: `no KB named ${JSON.stringify(kbParam)}; mounted KBs: ${list}`,
      };
    return { ok: true, target: { kind: "kb", kb, perKb: true } };
  }
  let typed: string;
  try {
    typed = decodeURIComponent(p.slice(MCP_PATH.length + 1));
  } catch {
    return { ok: false, status: 404, message: "malformed KB name in path" };
  }
  const refusal = down(typed);
  if (refusal) return refusal;
  const name = resolveKbName(typed, mounted);
  if (name === null)
    return {
      ok: false,
      status: 404,
      message: `no KB named ${JSON.stringify(typed)}; mounted KBs: ${list}`,
    };
  if (kbParam !== null && (resolveKbName(kbParam, mounted) ?? kbParam) !== name) {
    return {
      ok: false,
      status: 400,
      message: `?kb=${kbParam} conflicts with the path /mcp/${name}: name the KB once`,
    };
  }
  return { ok: true, target: { kind: "kb", kb: name, perKb: true } };
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}
