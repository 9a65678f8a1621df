/**
 * Step one of a provisioning run, before anything is written: every bound KB's manifest
 * (manifest.ts), fetched once per run over the same URL and token the provider entries use (a KB
 * whose revision the cache already holds answers `unchanged`: manifest-cache.ts), then
 * the trust gate (trust.ts) over all of them. Any failure — server, integrity, signature — throws,
 * and the caller writes nothing for any provider. An older server without `artifact_manifest`
 * is not a failure: provisioning is skipped with one note.
 */

import type { ClientConfig, ProviderBinding } from "../config.js";
import { ToolError } from "../errors.js";
import type { CommandIo } from "../lib/io.js";
import { openMcpSession } from "../mcp-session.js";
import { bearerHeaders } from "./connection.js";
import { fetchManifests, MANIFEST_TOOL, type ManifestCacheUse } from "./manifest.js";
import { fileManifestCache, manifestCacheDir } from "./manifest-cache.js";
import { planProvider, type Topology } from "./provider-plan.js";
import type { Prepared, TrustFlags } from "./provision.js";
import { evaluateTrust } from "./trust.js";
import type { KbManifest } from "./types.js";

/** The KBs each entry URL reaches, in binding order (one routed URL, or one URL per KB). */
function urlsFor(
  config: ClientConfig,
  bindings: readonly ProviderBinding[],
  topology: Topology,
  io: CommandIo,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const b of bindings) {
    const plan = planProvider(config, b, topology, io, false);
    if (topology.routedPath !== undefined) {
      const url = plan.entries[0]?.url;
      if (url && !out.has(url)) out.set(url, plan.kbs);
    } else {
      plan.kbs.forEach((kb, i) => {
        const url = plan.entries[i]?.url;
        if (url && !out.has(url)) out.set(url, [kb]);
      });
    }
  }
  return out;
}

const OLDER_SERVER = /^tool not found/i;

/**
 * Fetches and gates the manifests of every KB the bindings reach.
 * @throws the session's ClientError (unreachable, protocol, tool), an `integrity` or `untrusted`
 *   ClientError from manifest.ts / trust.ts; the caller then writes nothing.
 */
export async function prepareProvisioning(
  io: CommandIo,
  config: ClientConfig,
  bindings: readonly ProviderBinding[],
  topology: Topology,
  flags: TrustFlags = {},
): Promise<Prepared> {
  const manifests = new Map<string, KbManifest>();
  const headers = bearerHeaders(config, io);
  const cache = fileManifestCache(manifestCacheDir(io.home, io.env));
  const answers: ManifestCacheUse[] = [];
  for (const [url, bound] of urlsFor(config, bindings, topology, io)) {
    const wanted = bound.filter((kb) => !manifests.has(kb));
    if (wanted.length === 0) continue;
    const session = await openMcpSession(url, headers, io.fetch);
    try {
      const routed = topology.routedPath !== undefined && bound.length > 1;
      const use: ManifestCacheUse = { store: cache, url, toWrite: [] };
      for (const m of await fetchManifests(session, wanted, { routed, cache: use })) {
        manifests.set(m.kb, m);
      }
      answers.push(use);
    } catch (err) {
      if (err instanceof ToolError && OLDER_SERVER.test(err.text)) {
        return {
          serverKbs: topology.serverKbs,
          manifests: new Map(),
          decision: { accepted: [], held: [] },
          skipped: `the server has no ${MANIFEST_TOOL} tool (an older server): skills, agents, hooks, MCP servers and instructions.md of the KBs are not provisioned; upgrade the server`,
        };
      }
      throw err;
    } finally {
      await session.close();
    }
  }
  const decision = evaluateTrust([...manifests.values()], config, {
    autoTrust: flags.autoTrust === true,
    ...(flags.pinKeys ? { pinKeys: flags.pinKeys } : {}),
    env: io.env,
  });
  // Only answers that passed the trust gate are kept (a refused sync writes nothing).
  for (const use of answers) for (const a of use.toWrite) await cache.write(use.url, a.kb, a.text);
  return { serverKbs: topology.serverKbs, manifests, decision };
}
