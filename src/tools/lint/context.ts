/**
 * What the lint checks look at, read in one streamed pass over the KB (the I/O half; the checks
 * are pure). Bodies are in hand one batch at a time (store.streamConcepts): each concept is
 * shown to `visit` while it is read, and only its facts (id, path, placement, type) and its
 * links, as graph edges, are kept (docs/decisions.md "Whole-KB passes stream").
 */

import { isKbError } from "../../common/errors.js";
import type { AssetInfo, KbStore } from "../../kb/core/api.js";
import { detached } from "../../kb/core/detach.js";
import { LinkGraph, type UnresolvedLinks } from "../../kb/core/link-graph.js";
import { extractLinks, type LinkRef } from "../../kb/core/markdown.js";
import type { ConceptDoc, MapDescriptor } from "../../kb/core/types.js";

/** One concept as the stream hands it over: the document, its links and those no edge took. */
export interface DocView {
  doc: ConceptDoc;
  links: readonly LinkRef[];
  unresolved: UnresolvedLinks;
}

/** Size limits the oversize checks use (overridable for tests and per-KB tuning). */
export interface LintLimits {
  /** Body bytes above which a concept is oversize (concept_read's outline threshold). */
  conceptBytes: number;
  /** Concepts in one map/journal above which the map is oversize. */
  mapConcepts: number;
}

export const DEFAULT_LIMITS: LintLimits = { conceptBytes: 60 * 1024, mapConcepts: 500 };

/** A curated index file (root `data/index.md` or a map's `data/<map>/index.md`). */
export interface IndexFile {
  path: string;
  /** Map name, null for the root index. */
  map: string | null;
  links: LinkRef[];
}

/** What a concept leaves behind once the pass has moved on: no body, no frontmatter. */
export interface ConceptFacts {
  id: string;
  path: string;
  map: string | null;
  journal: string | null;
  type: string;
  expanded: boolean;
}

/** What every check may use, also while the stream runs. */
export interface LintEnv {
  maps: MapDescriptor[];
  /** KB-root-relative paths of the assets under data/. */
  assetPaths: ReadonlySet<string>;
  now: Date;
  limits: LintLimits;
}

export interface LintContext extends LintEnv {
  /** Every concept read, sorted by id. */
  docs: ConceptFacts[];
  byId: Map<string, ConceptFacts>;
  /** Links between concepts; its nodes are every concept id. */
  graph: LinkGraph;
  indexes: IndexFile[];
  assets: AssetInfo[];
  /** Asset paths some concept links to. */
  linkedAssets: Set<string>;
  /** Ids with two files: a flat `<id>.md` and an expanded `<id>/index.md`. */
  flatTwins: Set<string>;
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

async function readIndexes(store: KbStore, maps: readonly MapDescriptor[]): Promise<IndexFile[]> {
  const indexes: IndexFile[] = [];
  for (const m of [null, ...maps.map((d) => d.name)]) {
    const path = m === null ? "data/index.md" : `data/${m}/index.md`;
    const text = await readOrNull(store, path);
    if (text !== null) indexes.push({ path, map: m, links: extractLinks(text, path) });
  }
  return indexes;
}

/**
 * Reads the KB once, showing each concept to `visit` (with the env) while its body is in hand.
 * `onRead(done, total)` reports progress every 1,000 concepts and once at the end.
 */
export async function readLintContext(
  store: KbStore,
  now: Date,
  limits: LintLimits = DEFAULT_LIMITS,
  visit?: (view: DocView, env: LintEnv) => void,
  onRead?: (done: number, total: number) => void,
): Promise<LintContext> {
  const [files, maps, assets] = await Promise.all([
    store.scanConceptFiles(),
    store.maps(),
    store.assets(),
  ]);
  const assetPaths = new Map(assets.map((a) => [a.path, a.path]));
  const env: LintEnv = { maps, assetPaths: new Set(assetPaths.keys()), now, limits };
  const graph = new LinkGraph(files.map((f) => f.id));
  const docs: ConceptFacts[] = [];
  const linkedAssets = new Set<string>();
  for await (const doc of store.streamConcepts(files)) {
    const node = graph.node(doc.id);
    if (node === undefined) continue;
    const links = extractLinks(doc.body, doc.path);
    const unresolved = graph.addLinks(node, links);
    for (const link of unresolved.assets) {
      // The asset list's own string: the link's target is a slice of the body, which it keeps.
      const path = assetPaths.get(link.target);
      if (path !== undefined) linkedAssets.add(path);
    }
    visit?.({ doc, links, unresolved }, env);
    docs.push(factsOf(doc));
    if (docs.length % 1000 === 0 && docs.length < files.length) onRead?.(docs.length, files.length);
  }
  onRead?.(files.length, files.length);
  return {
    ...env,
    docs,
    byId: new Map(docs.map((d) => [d.id, d])),
    graph,
    indexes: await readIndexes(store, maps),
    assets,
    linkedAssets,
    flatTwins: new Set(files.filter((f) => f.twin).map((f) => f.id)),
  };
}

function factsOf(doc: ConceptDoc): ConceptFacts {
  const { id, path, map, journal, type, expanded } = doc;
  // `type` comes from the parsed frontmatter (a slice of the file's text): copied, not kept.
  return { id, path, map, journal, type: detached(type), expanded };
}
