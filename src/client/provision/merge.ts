/**
 * One provider reaches several KBs; their accepted artifacts become one set before rendering
 * (pure). Rules (docs/decisions.md "Client"):
 * - the same kind+name with the same content hash from several KBs (every KB's manifest carries
 *   the bundled skills) is installed once, from the first KB in binding order;
 * - a KB's own artifact beats a bundled one of the same kind+name (as on the server);
 * - two KBs with different content under one kind+name: neither is installed, both are held
 *   with a message — never silently pick one.
 */
import type { Artifact, HeldArtifact } from "./types.js";

export interface MergedArtifacts {
  artifacts: Artifact[];
  held: HeldArtifact[];
}

export function mergeArtifacts(accepted: readonly Artifact[], kbOrder: readonly string[]) {
  const rank = (kb: string) => {
    const at = kbOrder.indexOf(kb);
    return at < 0 ? kbOrder.length : at;
  };
  const groups = new Map<string, Artifact[]>();
  for (const a of accepted) {
    const key = `${a.kind}\0${a.name}`;
    const list = groups.get(key) ?? [];
    list.push(a);
    groups.set(key, list);
  }
  const out: MergedArtifacts = { artifacts: [], held: [] };
  for (const list of groups.values()) {
    const own = list.filter((a) => a.source !== "bundle");
    const candidates = (own.length > 0 ? own : list).sort((x, y) => rank(x.kb) - rank(y.kb));
    const hashes = new Set(candidates.map((a) => a.contentHash));
    const first = candidates[0] as Artifact;
    if (hashes.size === 1) {
      out.artifacts.push(first);
      continue;
    }
    const kbs = candidates.map((a) => a.kb);
    for (const a of candidates) {
      out.held.push({
        kb: a.kb,
        kind: a.kind,
        name: a.name,
        cause: "collision",
        reason: `KBs ${kbs.join(", ")} each have a ${a.kind} "${a.name}" with different content; neither is installed (rename or remove one of them in its KB, or bind only one of these KBs)`,
      });
    }
  }
  out.artifacts.sort((x, y) =>
    x.kind === y.kind ? (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) : x.kind < y.kind ? -1 : 1,
  );
  return out;
}
