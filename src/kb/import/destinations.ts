/**
 * Where each note goes (Go's rules, docs/import.md "Ids"): a source folder maps to a KB folder
 * (`--map`, the longest matching folder wins, else `--default-map`), a note becomes
 * `<folder>/<slug of its name>`; with --dir-as-concept a folder holding index.md (else
 * README.md) becomes one expanded concept owning its notes. Names that collide get `-2`, `-3`…
 * in source order. Pure.
 */
import { posix } from "node:path";
import { isKbError, KbError } from "../../common/errors.js";
import { validateId } from "../core/ids.js";
import { EMPTY_SLUG, firstFree, isReserved, slugOf } from "./slug.js";
import type { Collision, CollisionReason, ImportOptions, MapRule, PlanProblem } from "./types.js";

/** Parses one `--map <srcdir>=<map>` value; the map side must already be a valid KB folder id. */
export function parseMapRule(raw: string): MapRule {
  const at = raw.indexOf("=");
  const from = at < 0 ? "" : raw.slice(0, at).trim();
  const to =
    at < 0
      ? ""
      : raw
          .slice(at + 1)
          .trim()
          .replace(/^\/+|\/+$/g, "");
  if (!from || !to) {
    throw new KbError(
      "invalid_argument",
      `--map ${JSON.stringify(raw)}: expected <srcdir>=<map>, e.g. --map Projects=work`,
    );
  }
  checkFolder(`--map ${raw}`, to);
  const clean = posix.normalize(from.replace(/\\/g, "/")).replace(/\/+$/, "");
  if (clean.startsWith("../") || clean === "..") {
    throw new KbError(
      "invalid_argument",
      `--map ${raw}: ${from} is outside --source; name a folder inside it`,
    );
  }
  return { from: clean === "" ? "." : clean, to };
}

/** A destination folder (`map` or `map/sub`) is a valid id: lowercase a-z 0-9 . _ - segments. */
export function checkFolder(flag: string, folder: string): void {
  try {
    validateId(folder);
  } catch (err) {
    if (!isKbError(err)) throw err;
    throw new KbError("invalid_argument", `${flag}: ${err.message}`);
  }
}

export interface Destination {
  source: string;
  id: string;
  path: string;
  expand: boolean;
}

export interface Destinations {
  entries: Destination[];
  collisions: Collision[];
  errors: PlanProblem[];
}

const stemOf = (rel: string) => posix.basename(rel).replace(/\.md$/i, "");

function folderOf(dir: string, opts: ImportOptions): string | undefined {
  let best: MapRule | undefined;
  for (const rule of opts.maps) {
    const covers = rule.from === "." || dir === rule.from || dir.startsWith(`${rule.from}/`);
    if (covers && (!best || best.from === "." || rule.from.length > best.from.length)) best = rule;
  }
  return best?.to ?? opts.defaultMap;
}

/** The folder concepts of --dir-as-concept: source dir → the note that describes it. */
function folderConcepts(rels: readonly string[]): Map<string, string> {
  const owners = new Map<string, string>();
  for (const rel of rels) {
    const name = posix.basename(rel).toLowerCase();
    const dir = posix.dirname(rel);
    if (name === "index.md") owners.set(dir, rel);
    else if (name === "readme.md" && !owners.has(dir)) owners.set(dir, rel);
  }
  return owners;
}

interface Named {
  /** The id segment to use. */
  name: string;
  /** What the name normalized to before a reserved or empty name was replaced. */
  slug: string;
  reason?: CollisionReason;
}

function segmentOf(name: string): Named {
  const slug = slugOf(name);
  if (slug === "") return { name: EMPTY_SLUG, slug, reason: "no_usable_characters" };
  if (isReserved(slug)) return { name: `${slug}-note`, slug, reason: "reserved" };
  return { name: slug, slug };
}

/**
 * Ids for every note (`rels` in source order). Throws `invalid_argument` naming the source
 * folders that neither a --map nor --default-map covers (as Go).
 */
export function assignDestinations(rels: readonly string[], opts: ImportOptions): Destinations {
  const folders = new Map<string, string>();
  const unmapped = new Set<string>();
  for (const rel of rels) {
    const dir = posix.dirname(rel);
    const folder = folderOf(dir, opts);
    if (folder === undefined) unmapped.add(dir);
    else folders.set(dir, folder);
  }
  if (unmapped.size > 0) {
    throw new KbError(
      "invalid_argument",
      `no destination for source folder(s) ${[...unmapped].sort().join(", ")}: add --map <srcdir>=<map> or --default-map <map>`,
    );
  }
  const owners = opts.dirAsConcept ? folderConcepts(rels) : new Map<string, string>();
  const claimed = new Set<string>();
  const result: Destinations = { entries: [], collisions: [], errors: [] };
  const byName = new Map<string, Collision>();
  const ownerIds = new Map<string, string>();
  const claim = (source: string, parent: string, named: Named) => {
    const natural = `${parent}/${named.name}`;
    const reported = named.slug ? `${parent}/${named.slug}` : natural;
    const id = firstFree(natural, (c) => claimed.has(c));
    claimed.add(id);
    const reason = id !== natural ? "duplicate" : named.reason;
    if (reason) {
      const key = `${natural}\0${reason}`;
      let c = byName.get(key);
      if (!c) {
        c = { name: reason === "duplicate" ? natural : reported, reason, assigned: [] };
        byName.set(key, c);
        result.collisions.push(c);
        // The first holder of a duplicated name belongs in the report too.
        if (reason === "duplicate") {
          const first = result.entries.find((e) => e.id === natural);
          if (first) c.assigned.push({ source: first.source, id: first.id });
        }
      }
      c.assigned.push({ source, id });
    }
    return id;
  };
  const place = (source: string, id: string, expand: boolean) => {
    try {
      validateId(id, { forWrite: true });
      if (expand) validateId(`${id}/x`, { forWrite: true });
      result.entries.push({
        source,
        id,
        expand,
        path: expand ? `data/${id}/index.md` : `data/${id}.md`,
      });
    } catch (err) {
      if (!isKbError(err)) throw err;
      const why = expand ? `its folder concept ${id} has no room for notes under it` : err.message;
      result.errors.push({
        source,
        message: `cannot be imported as ${id}: ${why}; map its folder higher (--map)`,
      });
    }
  };
  // Folder concepts first, so the notes under one know its final id.
  for (const [dir, rel] of owners) {
    const name = dir === "." ? opts.sourceName : posix.basename(dir);
    const id = claim(rel, folders.get(dir) as string, segmentOf(name));
    ownerIds.set(dir, id);
    place(rel, id, true);
  }
  for (const rel of rels) {
    const dir = posix.dirname(rel);
    if (owners.get(dir) === rel) continue;
    const parent = ownerIds.get(dir) ?? (folders.get(dir) as string);
    place(rel, claim(rel, parent, segmentOf(stemOf(rel))), false);
  }
  const order = new Map(rels.map((r, i) => [r, i]));
  result.entries.sort((a, b) => (order.get(a.source) ?? 0) - (order.get(b.source) ?? 0));
  return result;
}
