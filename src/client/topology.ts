/**
 * Which MCP entries a provider should have (pure). D288: against a server with a routed path,
 * ONE entry named <server_name> pointing at <base><routed_path>?kbs=<binding>; against an
 * older server, one entry per KB named <server_name>-<kb> pointing at <base>/mcp/<kb>.
 */
export interface EntrySpec {
  name: string;
  url: string;
}

export interface TopologyInput {
  base: string;
  serverName: string;
  /** Set on a routed server (D187/D288); undefined on an older per-KB server. */
  routedPath?: string;
  /** The provider's binding; empty = all KBs. */
  binding: string[];
  /** Every KB the server mounts (expands an all-KB binding in per-KB mode). */
  serverKbs: string[];
}

export function expectedEntries(input: TopologyInput): EntrySpec[] {
  if (input.routedPath !== undefined) {
    const query =
      input.binding.length > 0 ? `?kbs=${input.binding.map(encodeURIComponent).join(",")}` : "";
    return [{ name: input.serverName, url: `${input.base}${input.routedPath}${query}` }];
  }
  const kbs = input.binding.length > 0 ? input.binding : input.serverKbs;
  return kbs.map((kb) => ({
    name: `${input.serverName}-${kb}`,
    url: `${input.base}/mcp/${encodeURIComponent(kb)}`,
  }));
}

/**
 * True when an entry in a provider file is one a connect may have written, in either shape:
 * named exactly <server_name>, or named <server_name>-<kb> with a URL ending in /mcp/<kb>.
 * Connect removes all of these before writing the live shape, so no orphan survives a
 * topology change (D187); an unrelated "cartographer-notes" entry pointing elsewhere is kept.
 */
export function isOwnedEntry(serverName: string, name: string, url: string | undefined): boolean {
  if (name === serverName) return true;
  const prefix = `${serverName}-`;
  if (!name.startsWith(prefix) || url === undefined) return false;
  const kb = name.slice(prefix.length);
  try {
    const pathname = new URL(url).pathname.replace(/\/+$/, "");
    return pathname.endsWith(`/mcp/${encodeURIComponent(kb)}`) || pathname.endsWith(`/mcp/${kb}`);
  } catch {
    return false;
  }
}

/** The KBs a provider reaches: its binding, or every KB the server mounts. */
export function boundKbs(binding: string[], serverKbs: string[]): string[] {
  return binding.length > 0 ? binding : serverKbs;
}
