/**
 * One KB's validated manifest from the server `.cartographer.yaml` names, for the commands that
 * act on a single KB (`approve`, `trust --pin-key-from-server`). It reaches the KB the way the
 * provider entries do: the routed endpoint bound to that KB (or, on an older server, the KB's
 * own endpoint), with the bearer token from `token_env`.
 */

import type { ClientConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import { baseUrlOf, fetchHealth } from "../health.js";
import type { CommandIo } from "../lib/io.js";
import { openMcpSession } from "../mcp-session.js";
import { expectedEntries } from "../topology.js";
import { bearerHeaders } from "./connection.js";
import { fetchManifests } from "./manifest.js";
import type { KbManifest } from "./types.js";

/**
 * Throws ConfigError for a KB the server does not mount (naming the ones it does), the session's
 * typed errors, and manifest.ts's `protocol` / `integrity` errors.
 */
export async function fetchKbManifest(
  io: CommandIo,
  config: ClientConfig,
  kb: string,
): Promise<KbManifest> {
  const base = baseUrlOf(config.server_url);
  const health = await fetchHealth(base, io.fetch);
  if (!health.kbs.includes(kb)) {
    throw new ConfigError(
      `the server at ${base} mounts no KB "${kb}"; it mounts: ${health.kbs.join(", ") || "(none)"}`,
    );
  }
  const [entry] = expectedEntries({
    base,
    serverName: config.server_name,
    ...(health.routedPath !== undefined ? { routedPath: health.routedPath } : {}),
    binding: [kb],
    serverKbs: health.kbs,
  });
  if (!entry) throw new ConfigError(`no endpoint for KB "${kb}"`);
  const session = await openMcpSession(entry.url, bearerHeaders(config, io), io.fetch);
  try {
    const [manifest] = await fetchManifests(session, [kb], {
      routed: health.routedPath !== undefined,
    });
    return manifest as KbManifest;
  } finally {
    await session.close();
  }
}
