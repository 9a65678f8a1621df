/**
 * The live tail: `changes_since` of every bound KB through one MCP session on the routed
 * endpoint, with the yaml's token. It goes through the server, so a change the token may not see
 * is never in the answer (the server filters it, docs/decisions.md "`changes_since` rebuilds
 * commit subjects per principal").
 */
import { ClientError } from "../errors.js";
import type { CommandIo } from "../lib/io.js";
import type { StatusSnapshot } from "../lib/status-snapshot.js";
import { openMcpSession } from "../mcp-session.js";
import type { ChangeRow } from "./state.js";

/** How far back the tail looks, and how many rows it keeps. */
export const TAIL_SINCE = "1d";
export const TAIL_LIMIT = 10;

/** The KBs connected providers reach, in the server's order (a binding without KBs: all). */
export function boundKbs(snapshot: StatusSnapshot): string[] {
  if (!snapshot.server.reachable) return [];
  const mounted = snapshot.server.health.kbs;
  const connected = snapshot.providers.filter((p) => p.connected);
  const wanted = new Set<string>();
  for (const p of connected) for (const kb of p.kbs ?? mounted) wanted.add(kb);
  return mounted.filter((kb) => wanted.has(kb));
}

type Json = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** One KB's `changes_since` answer as rows (a malformed item is left out). */
export function rowsOf(kb: string, text: string): ChangeRow[] {
  let answer: Json;
  try {
    answer = JSON.parse(text) as Json;
  } catch {
    return [];
  }
  const changes = Array.isArray(answer.changes) ? (answer.changes as Json[]) : [];
  return changes
    .filter((c) => c !== null && typeof c === "object" && typeof c.id === "string")
    .map((c) => ({
      kb,
      id: str(c.id),
      change: str(c.change),
      time: str(c.last_time),
      subject: Array.isArray(c.subjects) ? str(c.subjects[0]) : "",
    }));
}

/** Newest first over every KB, at most `limit`. */
export function mergeChanges(rows: ChangeRow[], limit = TAIL_LIMIT): ChangeRow[] {
  return [...rows].sort((a, b) => b.time.localeCompare(a.time)).slice(0, limit);
}

/**
 * Asks the server for the recent changes of `kbs`. Throws a ClientError (unreachable, refused)
 * whose message names the URL, never the token.
 */
export async function recentChanges(
  io: CommandIo,
  snapshot: StatusSnapshot,
  kbs: readonly string[],
): Promise<ChangeRow[]> {
  if (kbs.length === 0 || !snapshot.server.reachable) return [];
  const { url, health } = snapshot.server;
  if (!health.routedPath) throw new ClientError("protocol", "the server has no routed endpoint");
  const token = snapshot.tokenEnv ? io.env[snapshot.tokenEnv] : undefined;
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const session = await openMcpSession(`${url}${health.routedPath}`, headers, io.fetch);
  try {
    const rows: ChangeRow[] = [];
    for (const kb of kbs) {
      const text = await session.callTool("changes_since", {
        kb,
        since: TAIL_SINCE,
        limit: TAIL_LIMIT,
      });
      rows.push(...rowsOf(kb, text));
    }
    return mergeChanges(rows);
  } finally {
    await session.close();
  }
}
