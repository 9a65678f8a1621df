import { ConfigError, classifyFetchFailure, ProtocolError } from "./errors.js";

export type FetchFn = typeof fetch;

/** What GET /health told us. `routedPath` is absent on an older, per-KB server. */
export interface ServerHealth {
  status: string;
  version: string;
  ready: boolean;
  kbs: string[];
  mountMode: "routed" | "per-kb";
  routedPath?: string;
  /** Each KB as /health describes it, in the same order as `kbs`. */
  kbStates: KbHealth[];
}

/** One KB of /health: served or not, its background index, a stopped sync, open conflicts. */
export interface KbHealth {
  name: string;
  /** `ok`, `degraded` (conflicts or sync stopped), `unavailable`, or what the server said. */
  status: string;
  /** `queued`, `building`, `ready`, `failed`; absent when the server does not say. */
  index?: { state: string; done?: number; total?: number };
  /** Why sync stopped (`diverged`, `private_state`); absent while it runs or is off. */
  sync?: string;
  conflicts: number;
}

/** A /health kbs item as KbHealth; a bare string (an older server) is a name only. */
function kbHealthOf(item: unknown, name: string): KbHealth {
  const o = (item !== null && typeof item === "object" ? item : {}) as Record<string, unknown>;
  const index = o.index as Record<string, unknown> | undefined;
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const done = num(index?.done);
  const total = num(index?.total);
  return {
    name,
    status: typeof o.status === "string" ? o.status : "ok",
    ...(index && typeof index.state === "string"
      ? {
          index: {
            state: index.state,
            ...(done !== undefined ? { done } : {}),
            ...(total !== undefined ? { total } : {}),
          },
        }
      : {}),
    ...(typeof o.sync === "string" ? { sync: o.sync } : {}),
    conflicts: num(o.conflicts) ?? 0,
  };
}

/**
 * The server base URL: `server_url` may name an MCP path (`…/mcp`, `…/mcp/<kb>`,
 * `…/mcp/routed?kbs=…`); everything from `/mcp` on, the query and a trailing slash go.
 */
export function baseUrlOf(serverUrl: string): string {
  // A bad URL is the user's input, not something a server answered: a ConfigError.
  const invalid = () =>
    new ConfigError(
      `server_url "${serverUrl}" is not an http(s) URL; write it in full, e.g. http://127.0.0.1:39273`,
    );
  let url: URL;
  try {
    url = new URL(serverUrl);
  } catch {
    throw invalid();
  }
  // "localhost:39273" parses, with "localhost:" as its scheme.
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid();
  const at = url.pathname.search(/\/mcp(\/|$)/);
  const pathname = at >= 0 ? url.pathname.slice(0, at) : url.pathname;
  return `${url.origin}${pathname.replace(/\/+$/, "")}`;
}

/** GET <base>/health, classified: unreachable, HTTP/JSON protocol error, or a health record. */
export async function fetchHealth(
  base: string,
  fetchFn: FetchFn = fetch,
  timeoutMs = 5000,
): Promise<ServerHealth> {
  const url = `${base}/health`;
  let response: Response;
  try {
    response = await fetchFn(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw classifyFetchFailure(url, err);
  }
  let body: string;
  try {
    body = await response.text();
  } catch (err) {
    throw classifyFetchFailure(url, err);
  }
  if (!response.ok) throw new ProtocolError(url, response.status, "health check failed");
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new ProtocolError(
      url,
      response.status,
      "answer is not JSON; is this a Cartographer server?",
    );
  }
  if (json === null || typeof json !== "object" || !Array.isArray(json.kbs)) {
    throw new ProtocolError(
      url,
      response.status,
      "answer has no kbs list; is this a Cartographer server?",
    );
  }
  const kbs = (json.kbs as unknown[]).map((k) =>
    typeof k === "string" ? k : String((k as { name?: unknown })?.name ?? ""),
  );
  if (kbs.some((k) => k === ""))
    throw new ProtocolError(url, response.status, "a kbs item has no name");
  const routedPath =
    json.mount_mode === "routed" && typeof json.routed_path === "string"
      ? json.routed_path
      : undefined;
  return {
    status: String(json.status ?? ""),
    version: String(json.version ?? ""),
    ready: json.ready === true,
    kbs,
    mountMode: routedPath ? "routed" : "per-kb",
    ...(routedPath ? { routedPath } : {}),
    kbStates: (json.kbs as unknown[]).map((item, i) => kbHealthOf(item, kbs[i] ?? "")),
  };
}
