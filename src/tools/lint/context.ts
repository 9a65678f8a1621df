/**
 * Everything the lint checks look at, read once per lint run (the I/O half). Checks are pure
 * functions of this context, so each one is tested by building a KB and reading it here.
 */
import type { AssetInfo, KbStore } from "../../kb/api.js";
import { isKbError } from "../../kb/errors.js";
import { buildLinkGraph, type LinkGraph } from "../../kb/link-graph.js";
import { extractLinks, type LinkRef } from "../../kb/markdown.js";
import type { ConceptDoc, MapDescriptor } from "../../kb/types.js";

/** Size limits the oversize checks use (overridable for tests and per-KB tuning). */
export interface LintLimits {
  /** Body bytes above which a concept is oversize (concept_read's outline threshold). */
  conceptBytes: number;
  /** Concepts in one map/journal above which the map is oversize. */
  mapConcepts: number;
}

const TWIN_BATCH = 64;

export const DEFAULT_LIMITS: LintLimits = { conceptBytes: 60 * 1024, mapConcepts: 500 };

/** A curated index file (root `data/index.md` or a map's `data/<map>/index.md`). */
export interface IndexFile {
  path: string;
  /** Map name, null for the root index. */
  map: string | null;
  links: LinkRef[];
}

export interface LintContext {
  docs: ConceptDoc[];
  byId: Map<string, ConceptDoc>;
  maps: MapDescriptor[];
  graph: LinkGraph;
  indexes: IndexFile[];
  assets: AssetInfo[];
  /** Ids with two files: a flat `<id>.md` and an expanded `<id>/index.md`. */
  flatTwins: Set<string>;
  now: Date;
  limits: LintLimits;
}

/**
 * A file lint looks at by name, or null. A path leading outside the KB through a symlink is
 * refused by the store (`invalid_argument`): lint treats it as absent rather than failing.
 */
async function readOrNull(store: KbStore, path: string): Promise<string | null> {
  try {
    return await store.readText(path);
  } catch (e) {
    if (isKbError(e, "invalid_argument")) return null;
    throw e;
  }
}

export async function readLintContext(
  store: KbStore,
  now: Date,
  limits: LintLimits = DEFAULT_LIMITS,
): Promise<LintContext> {
  const [docs, maps, assets] = await Promise.all([
    store.listConcepts(),
    store.maps(),
    store.assets(),
  ]);
  const indexes: IndexFile[] = [];
  for (const m of [null, ...maps.map((d) => d.name)]) {
    const path = m === null ? "data/index.md" : `data/${m}/index.md`;
    const text = await readOrNull(store, path);
    if (text !== null) indexes.push({ path, map: m, links: extractLinks(text, path) });
  }
  // The store reads the flat `<id>.md` when both forms exist, so look for the expanded twin.
  const flatTwins = new Set<string>();
  const flat = docs.filter((d) => !d.expanded);
  for (let i = 0; i < flat.length; i += TWIN_BATCH) {
    await Promise.all(
      flat.slice(i, i + TWIN_BATCH).map(async (d) => {
        const twin = d.path.replace(/\.md$/, "/index.md");
        if ((await readOrNull(store, twin)) !== null) flatTwins.add(d.id);
      }),
    );
  }
  return {
    docs,
    byId: new Map(docs.map((d) => [d.id, d])),
    maps,
    graph: buildLinkGraph(docs),
    indexes,
    assets,
    flatTwins,
    now,
    limits,
  };
}
