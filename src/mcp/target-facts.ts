/**
 * Facts authorization needs about the concepts a call touches, read from the store: placement
 * from the map descriptors, the current type from the file. Read again under the lock for writes.
 */
import { posix } from "node:path";
import { hasWholeKb } from "../auth/decide.js";
import type { AuthRequest, Policy, TargetFacts } from "../auth/types.js";
import type { KbStore } from "../kb/api.js";
import { placementOf } from "../kb/ids.js";
import type { ToolSpec, ToolTarget } from "../tools/spec.js";

/**
 * The AuthRequest of a resolved tool with validated arguments. Given the caller's `policy`, the
 * store reads are skipped when no fact can change the decision: a principal holding whole-KB
 * access (admin, LOCAL_ADMIN, a selector-free rule) is allowed on every target whatever its
 * placement, type or existence (decide.ts), and so is a request naming none.
 */
export async function buildAuthRequest(
  store: KbStore,
  kb: string,
  spec: ToolSpec,
  args: Record<string, unknown>,
  policy?: Policy,
): Promise<AuthRequest> {
  let targets = spec.targets ? spec.targets(args) : [];
  const access = spec.readOnly && !targets.some((t) => t.write) ? "r" : "rw";
  if (policy !== undefined && hasWholeKb(policy, kb, access)) targets = [];
  const maps = targets.length > 0 ? await store.maps() : [];
  const facts: TargetFacts[] = [];
  const curatedIndex = spec.resource === "curated-index";
  for (const target of targets) facts.push(await factsOf(store, maps, target, curatedIndex));
  return {
    kb,
    access: spec.readOnly ? "r" : "rw",
    resourceClass: spec.resource,
    targets: facts,
    requireWholeKb: spec.requiresWholeKb ? spec.requiresWholeKb(args) : false,
  };
}

/** Unknown tool or unparsable arguments: an unclassified write, denied unless admin (D118). */
export function unclassifiedWrite(kb: string): AuthRequest {
  return { kb, access: "rw", resourceClass: null, targets: [], requireWholeKb: false };
}

async function factsOf(
  store: KbStore,
  maps: Awaited<ReturnType<KbStore["maps"]>>,
  target: ToolTarget,
  curatedIndex: boolean,
): Promise<TargetFacts> {
  // A curated-index target names the map itself; its index.md is a member of that map.
  const path = curatedIndex ? `${target.id}/index` : canonicalPath(target.id);
  const placement = placementOf(path, maps);
  const doc = await tryRead(store, target.id);
  return {
    map: placement.map,
    journal: placement.journal,
    type: doc ? doc.type : null,
    proposedType: target.proposedType ?? null,
    exists: doc !== null,
    write: target.write,
  };
}

/**
 * Where the store will act for `id`: asset paths are normalized by the store (`alpha/../beta/x`
 * is `data/beta/x`), so placement must be judged on the same normalized path, or a visible
 * first segment would authorize a hidden map. A leading `data/` (asset paths) is dropped; a
 * path escaping upwards keeps its `..` and so has no placement (fail closed). Valid concept ids
 * are already in this form; invalid ones are refused by the store whatever their placement.
 */
export function canonicalPath(id: string): string {
  if (id === "") return id;
  const norm = posix.normalize(id).replace(/\/+$/, "");
  return norm.startsWith("data/") ? norm.slice("data/".length) : norm;
}

/** Asset paths and ids the store rejects are simply not concepts: no current type. */
async function tryRead(store: KbStore, id: string) {
  try {
    return await store.tryReadConcept(id);
  } catch {
    return null;
  }
}
