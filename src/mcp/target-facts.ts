/**
 * Facts authorization needs about the concepts a call touches, read from the store: placement
 * from the map descriptors, the current type from the file, read through the call's CallReads
 * (a read's handler then reuses it). Read again under the lock for writes.
 */
import { posix } from "node:path";
import { hasWholeKb } from "../auth/decide.js";
import type { AuthRequest, Policy, TargetFacts } from "../auth/types.js";
import { KbError } from "../common/errors.js";
import type { KbStore } from "../kb/core/api.js";
import { parseDocument } from "../kb/core/frontmatter.js";
import { candidatePaths, placementOf } from "../kb/core/ids.js";
import type { ConceptDoc, MapDescriptor, Placement } from "../kb/core/types.js";
import { filesUnderDir } from "../kb/store/assets.js";
import { CallReads } from "../tools/call-reads.js";
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
  reads: CallReads = new CallReads(store),
): Promise<AuthRequest> {
  let targets = spec.targets ? spec.targets(args) : [];
  if (spec.storeTargets) targets = [...targets, ...(await spec.storeTargets(args, store))];
  const access = spec.readOnly && !targets.some((t) => t.write) ? "r" : "rw";
  if (policy !== undefined && hasWholeKb(policy, kb, access)) targets = [];
  const maps = targets.length > 0 ? await store.maps() : [];
  const facts: TargetFacts[] = [];
  const curatedIndex = spec.resource === "curated-index";
  if (spec.resource === "src-dst") facts.push(...(await moveFacts(store, reads, maps, targets)));
  else for (const target of targets) facts.push(await factsOf(reads, maps, target, curatedIndex));
  return {
    kb,
    // A read-only tool that names a write target (service_get resolving secrets) needs rw.
    access,
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
  reads: CallReads,
  maps: readonly MapDescriptor[],
  target: ToolTarget,
  curatedIndex: boolean,
): Promise<TargetFacts> {
  return factsFor(maps, target, curatedIndex, await tryRead(reads, target.id));
}

function factsFor(
  maps: readonly MapDescriptor[],
  target: ToolTarget,
  curatedIndex: boolean,
  doc: ConceptDoc | null,
): TargetFacts {
  // A curated-index target names the map itself; its index.md is a member of that map.
  const path = curatedIndex ? `${target.id}/index` : canonicalPath(target.id);
  const placement = placementOf(path, maps);
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
 * A src-dst tool (concept_move) lists its targets as (source, destination) pairs. A move keeps
 * the type, so the destination is judged with the source's current type as the proposed type
 * (a missing source proposes none: hidden from a typed role, like any missing concept). An
 * expanded source moves its whole folder: every other file under it is a write at both ends,
 * satellites with their own type, assets and other files with none (as the asset tools judge
 * them), so a hidden satellite makes the move `not found` and nothing hidden moves.
 */
async function moveFacts(
  store: KbStore,
  reads: CallReads,
  maps: readonly MapDescriptor[],
  targets: ToolTarget[],
): Promise<TargetFacts[]> {
  if (targets.length % 2 !== 0) {
    throw new KbError("internal", "a src-dst tool must list its targets as (from, to) pairs");
  }
  const facts: TargetFacts[] = [];
  for (let i = 0; i < targets.length; i += 2) {
    const from = targets[i] as ToolTarget;
    const to = targets[i + 1] as ToolTarget;
    const source = await tryRead(reads, from.id);
    facts.push(factsFor(maps, from, false, source));
    const kept = source ? { ...to, proposedType: source.type } : to;
    facts.push(factsFor(maps, kept, false, await tryRead(reads, to.id)));
    if (source?.expanded) facts.push(...(await folderFacts(store, maps, source, to.id)));
  }
  return facts;
}

/**
 * Both ends of every file an expanded concept's folder carries along, enumerated with the very
 * function the store's move planner uses, so no file moves without having been judged.
 */
async function folderFacts(
  store: KbStore,
  maps: readonly MapDescriptor[],
  source: ConceptDoc,
  toId: string,
): Promise<TargetFacts[]> {
  const fromDir = source.path.slice(0, -"/index.md".length);
  const toDir = candidatePaths(toId)[1].slice(0, -"/index.md".length);
  const facts: TargetFacts[] = [];
  for (const file of await filesUnderDir(store.root, fromDir)) {
    if (file === source.path) continue;
    const type = file.endsWith(".md") ? await typeOfFile(store, file) : null;
    const dest = toDir + file.slice(fromDir.length);
    facts.push(
      { ...filePlacement(file, maps), type, exists: true, write: true },
      { ...filePlacement(dest, maps), type: null, proposedType: type, exists: false, write: true },
    );
  }
  return facts;
}

function filePlacement(path: string, maps: readonly MapDescriptor[]): Placement {
  return placementOf(canonicalPath(path), maps);
}

/** `frontmatter.type` of a Markdown file; null (visible to no typed rule) when unreadable. */
async function typeOfFile(store: KbStore, path: string): Promise<string | null> {
  try {
    const type = parseDocument((await store.readText(path)) ?? "").frontmatter.type;
    return typeof type === "string" ? type : null;
  } catch {
    return null;
  }
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
async function tryRead(reads: CallReads, id: string): Promise<ConceptDoc | null> {
  try {
    return (await reads.concept(id))?.doc ?? null;
  } catch {
    return null;
  }
}
