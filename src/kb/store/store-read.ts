/**
 * Reading the KB layout: map descriptors, the concept walk (expanded owners and satellites,
 * `services/`), id resolution and concept documents.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { KbError } from "../../common/errors.js";
import type { Logger } from "../../logger.js";
import type { ConceptFileStat } from "../core/api.js";
import { parseDocument } from "../core/frontmatter.js";
import { contentHash } from "../core/hash.js";
import { candidatePaths, pathToId, placementOf, validateId } from "../core/ids.js";
import { LEGACY_MAP_FILE, MAP_FILE, parseMapDescriptor } from "../core/maps.js";
import type { ConceptDoc, MapDescriptor } from "../core/types.js";
import { isVanished, listWalkDir, readTextOrNull, walkFiles } from "./fsutil.js";

/** Descriptors of data/'s top-level folders (`_map.md`, else legacy `_archive.md`), by name. */
export async function loadMaps(root: string, logger: Logger): Promise<MapDescriptor[]> {
  const entries = await listWalkDir(root, "data");
  const dirs = entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name);
  const found = await Promise.all(dirs.map((name) => loadMap(root, name, logger)));
  return found
    .filter((m): m is MapDescriptor => m !== null)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * The descriptor of the folder `data/<name>` as loadMaps reads it (`_map.md`, else legacy
 * `_archive.md`; unreadable or invalid: null, with a warning). The caller has checked that the
 * folder is one loadMaps lists.
 */
export async function loadMap(
  root: string,
  name: string,
  logger: Logger,
): Promise<MapDescriptor | null> {
  for (const file of [MAP_FILE, LEGACY_MAP_FILE]) {
    const path = `data/${name}/${file}`;
    try {
      const text = await readTextOrNull(root, path);
      if (text === null) continue;
      return parseMapDescriptor(name, path, text);
    } catch (e) {
      logger.warn(`ignoring map descriptor ${path}: ${(e as Error).message}`);
      return null;
    }
  }
  return null;
}

/** Concept id of a KB-root-relative path, excluding the index of a map/journal folder. */
export function conceptIdOf(path: string, maps: readonly MapDescriptor[]): string | null {
  const id = pathToId(path);
  if (id === null) return null;
  if (!id.includes("/") && path.endsWith("/index.md") && maps.some((m) => m.name === id))
    return null;
  return id;
}

/** All `.md` files (relative paths) under `dir`, hidden entries and symlinks skipped. */
export function walkMarkdown(root: string, dir: string): Promise<string[]> {
  return walkFiles(root, dir, (name) => name.endsWith(".md"));
}

/** Files a scan handles between two turns of the event loop. */
const SCAN_STEP = 200;

/** Concept files sorted by id; when both `<id>.md` and `<id>/index.md` exist the first wins. */
export async function scanConcepts(
  root: string,
  maps: readonly MapDescriptor[],
): Promise<ConceptFileStat[]> {
  const files = [...(await walkMarkdown(root, "data")), ...(await walkMarkdown(root, "services"))];
  const byId = new Map<string, string>();
  /** Ids with both `<id>.md` and `<id>/index.md` (lint's expanded_ambiguous). */
  const twins = new Set<string>();
  // Yielding every SCAN_STEP files here and below: a 10,000-file KB otherwise held the event
  // loop 60–150 ms per scan (at load 12), on every background refresh pass.
  for (const [i, path] of files.sort().entries()) {
    if (i > 0 && i % SCAN_STEP === 0) await new Promise((r) => setImmediate(r));
    const id = conceptIdOf(path, maps);
    if (id === null) continue;
    const prev = byId.get(id);
    if (prev !== undefined) twins.add(id);
    if (prev === undefined || path.endsWith(`${id.split("/").pop()}.md`)) byId.set(id, path);
  }
  const ids = [...byId.keys()].sort();
  const out: ConceptFileStat[] = [];
  for (const [i, id] of ids.entries()) {
    // Sync stat, yielding every SCAN_STEP files: far faster than async stat on a busy thread pool.
    if (i > 0 && i % SCAN_STEP === 0) await new Promise((r) => setImmediate(r));
    const path = byId.get(id) as string;
    let s: import("node:fs").Stats;
    try {
      s = statSync(join(root, path));
    } catch (e) {
      if (isVanished(e)) continue; // moved or deleted since the walk: not a concept any more
      throw e;
    }
    const stat: ConceptFileStat = { id, path, mtimeMs: s.mtimeMs, size: s.size };
    if (twins.has(id)) stat.twin = true;
    out.push(stat);
  }
  return out;
}

/**
 * Builds a ConceptDoc from a file's text (an unparseable file keeps its text as body, type "").
 * `hash` is given when `text` is only the head of the file (index-read.ts streams the hash).
 */
export function toConceptDoc(
  id: string,
  path: string,
  text: string,
  maps: readonly MapDescriptor[],
  logger?: Logger,
  hash?: string,
): ConceptDoc {
  let frontmatter: ConceptDoc["frontmatter"] = {};
  let body = text;
  try {
    const doc = parseDocument(text);
    frontmatter = doc.frontmatter;
    body = doc.body;
  } catch (e) {
    logger?.warn(`${path}: ${(e as Error).message}`);
  }
  const type = typeof frontmatter.type === "string" ? frontmatter.type : "";
  return {
    id,
    path,
    frontmatter,
    body,
    hash: hash ?? contentHash(text),
    type,
    title: typeof frontmatter.title === "string" ? frontmatter.title : null,
    expanded: path.endsWith("/index.md"),
    ...placementOf(id, maps),
  };
}

export interface Resolved {
  path: string;
  text: string;
  /** The other candidate also exists (`expanded_ambiguous` on write). */
  ambiguous: boolean;
}

/** Resolves `<id>.md` then `<id>/index.md`; null when neither exists. */
export async function resolveConcept(
  root: string,
  id: string,
  maps: readonly MapDescriptor[],
): Promise<Resolved | null> {
  validateId(id);
  const [flat, expanded] = candidatePaths(id);
  const isMapFolder = !id.includes("/") && maps.some((m) => m.name === id);
  const [a, b] = await Promise.all([
    readCandidate(root, flat),
    isMapFolder ? Promise.resolve(null) : readCandidate(root, expanded),
  ]);
  const text = (r: typeof a) => (r instanceof KbError ? null : r);
  // A candidate leading outside through a symlink never counts; it is the answer (refused)
  // only when no candidate inside exists, so a stray link next to a concept breaks nothing.
  if (text(a) !== null) return { path: flat, text: text(a) as string, ambiguous: text(b) !== null };
  if (text(b) !== null) return { path: expanded, text: text(b) as string, ambiguous: false };
  if (a instanceof KbError) throw a;
  if (b instanceof KbError) throw b;
  return null;
}

/** A candidate file's text, null when missing, or the refusal when it leads outside the KB. */
async function readCandidate(root: string, path: string): Promise<string | null | KbError> {
  try {
    return await readTextOrNull(root, path);
  } catch (e) {
    if (e instanceof KbError && e.code === "invalid_argument") return e;
    throw e;
  }
}

export function notFound(id: string): KbError {
  return new KbError(
    "not_found",
    `concept "${id}" does not exist (looked for ${candidatePaths(id).join(" and ")})`,
    {
      id,
    },
  );
}

/** `expanded_ambiguous` for an id with both files, naming the tool argument that resolves it. */
export function ambiguousError(id: string, label = `concept "${id}"`): KbError {
  const [flat, expanded] = candidatePaths(id);
  return new KbError(
    "expanded_ambiguous",
    `${label} exists as both ${flat} and ${expanded}: merge them, then delete one with concept_delete variant: "flat" or variant: "expanded"`,
    { id },
  );
}
