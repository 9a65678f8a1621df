/**
 * `cartographer reindex` through a running server (as Go's reindex command): the server named
 * by the client yaml (`server_url`, default http://127.0.0.1:39273) owns its KBs' indexes, so
 * the CLI calls each KB's `reindex` tool on `/mcp/routed?kbs=<name>` instead of opening the
 * index beside it. The caller falls back to a local rebuild only when no server holds the KB
 * (docs/decisions.md, "`cartographer reindex` asks the server the client yaml names").
 */
import { existsSync } from "node:fs";
import { DEFAULT_SERVER_URL, loadConfig } from "../config.js";
import { ClientError } from "../errors.js";
import { baseUrlOf, fetchHealth } from "../health.js";
import { type CommandIo, type CommonOptions, configPath } from "../lib/io.js";
import { openMcpSession } from "../mcp-session.js";
import { bearerHeaders } from "../provision/connection.js";

export interface RemoteServer {
  base: string;
  kbs: string[];
  headers: Record<string, string>;
}

export type ServerLookup = { server: RemoteServer } | { server: null; base: string; why: string };

/**
 * The server the client yaml names, with its mounted KBs; `server: null` (and why) when its
 * /health does not answer as a Cartographer server's does (then no server holds any KB).
 */
export async function runningServer(io: CommandIo, opts: CommonOptions): Promise<ServerLookup> {
  const file = configPath(io, opts);
  const config = existsSync(file) ? (await loadConfig(file)).config : undefined;
  const base = baseUrlOf(config?.server_url ?? DEFAULT_SERVER_URL);
  try {
    const health = await fetchHealth(base, io.fetch, 3000);
    return { server: { base, kbs: health.kbs, headers: config ? bearerHeaders(config, io) : {} } };
  } catch (err) {
    if (err instanceof ClientError) return { server: null, base, why: err.message };
    throw err;
  }
}

/**
 * Calls `reindex` on each of `names` (mounted names of `server`), printing `<kb>: <result>` per
 * KB as Go does. Returns the exit code: 0, or 1 at the first KB whose call failed.
 */
export async function reindexOnServer(
  io: CommandIo,
  server: RemoteServer,
  names: readonly string[],
): Promise<number> {
  for (const kb of names) {
    const url = `${server.base}/mcp/routed?kbs=${encodeURIComponent(kb)}`;
    try {
      // A large KB takes a while: the tool answers when the rebuild is done.
      const session = await openMcpSession(url, server.headers, io.fetch, 600_000);
      try {
        const text = await session.callTool("reindex", {});
        io.stdout.write(`${kb}: ${text.trim()}\n`);
      } finally {
        await session.close();
      }
    } catch (err) {
      const message = err instanceof ClientError ? err.message : (err as Error).message;
      io.stderr.write(`cartographer error: reindex ${kb} on ${server.base}: ${message}\n`);
      return 1;
    }
  }
  return 0;
}
