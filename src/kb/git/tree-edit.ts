/**
 * A commit's tree with some paths replaced or removed, built in this process from the trees
 * along those paths (docs/decisions.md "A write commits through objects written in process").
 * Each folder a path runs through is read (from a bounded cache of trees by id, which never goes
 * stale: an id names one content), edited and put in the commit's batch of objects; every other
 * subtree keeps its id.
 * The result is the tree `git write-tree` makes from HEAD's index plus those paths: entries in
 * git's order (a folder sorts as its name + "/"), a folder left empty dropped. Anything that
 * tree could not hold the same way answers `undefined` and the caller lets git commit do it.
 */
import type { GitObjects, ObjectBatch } from "./objects.js";

export interface TreeEntry {
  /** As git writes it: 100644, 100755, 120000, 160000 or 40000. */
  mode: string;
  /** The name's bytes, one char per byte (latin1), so string order is git's byte order. */
  name: string;
  sha: string;
}

/** A path's new content (its blob and mode), or null: removed. */
export type PathEdit = { blob: string; mode: "100644" | "100755" } | null;

const CANONICAL_MODES = new Set(["100644", "100755", "120000", "160000", "40000"]);
/** The empty tree: git's index never holds one, so write-tree never writes a folder of it. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/**
 * Tree entries kept parsed between writes, least recently used dropped first: a write needs
 * the few folders on its paths (hundreds of entries at 10,000 concepts); a few MB per KB at most,
 * however many KBs are mounted.
 */
const CACHE_ENTRIES = 20_000;
const ATTRIBUTES = ".gitattributes";

export function parseTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > body.length) throw new Error("malformed tree");
    entries.push({
      mode: body.toString("latin1", at, space),
      name: body.toString("latin1", space + 1, nul),
      sha: body.toString("hex", nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return entries;
}

const sortKey = (e: TreeEntry) => (e.mode === "40000" ? `${e.name}/` : e.name);

/** Entries in git's order: by name bytes, a folder compared as its name + "/". */
export function sortEntries(entries: readonly TreeEntry[]): TreeEntry[] {
  return [...entries].sort((a, b) => {
    const [x, y] = [sortKey(a), sortKey(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** The tree object's body of entries already in git's order (sortEntries). */
export function serializeTree(sorted: readonly TreeEntry[]): Buffer {
  return Buffer.concat(
    sorted.flatMap((e) => [
      Buffer.from(`${e.mode} ${e.name}\0`, "latin1"),
      Buffer.from(e.sha, "hex"),
    ]),
  );
}

interface Folder {
  files: Map<string, PathEdit>;
  folders: Map<string, Folder>;
}

/** Thrown inside an edit when git would build this tree differently: the caller falls back. */
class Unusual extends Error {}

export class TreeEditor {
  readonly #cache = new Map<string, TreeEntry[]>();
  #held = 0;

  constructor(private readonly objects: GitObjects) {}

  /**
   * The id of `root` with `edits` (repository-relative paths) applied; `root` itself when
   * nothing changes. `undefined`: a case git would handle differently (a file where a folder
   * was or the reverse, a submodule, a `.gitattributes` on the way, a mode git would rewrite).
   */
  async apply(
    root: string,
    edits: ReadonlyMap<string, PathEdit>,
    batch: ObjectBatch,
  ): Promise<string | undefined> {
    const top: Folder = { files: new Map(), folders: new Map() };
    for (const [path, edit] of edits) {
      const parts = path.split("/").map((p) => Buffer.from(p, "utf8").toString("latin1"));
      let folder = top;
      for (const part of parts.slice(0, -1)) {
        const next = folder.folders.get(part) ?? { files: new Map(), folders: new Map() };
        folder.folders.set(part, next);
        folder = next;
      }
      folder.files.set(parts.at(-1) as string, edit);
    }
    try {
      return (await this.#edit(root, top, batch)) ?? batch.put("tree", Buffer.alloc(0));
    } catch (e) {
      if (e instanceof Unusual) return undefined;
      throw e;
    }
  }

  /** The folder's new id, null when it ends up empty. */
  async #edit(sha: string | null, folder: Folder, batch: ObjectBatch): Promise<string | null> {
    const entries = sha === null ? [] : await this.#tree(sha);
    const byName = new Map(entries.map((e) => [e.name, e]));
    if (byName.has(ATTRIBUTES)) throw new Unusual(); // git add may convert what it stores
    let changed = false;
    const put = (name: string, entry: TreeEntry | null) => {
      const old = byName.get(name);
      if (entry === null ? old === undefined : old?.mode === entry.mode && old.sha === entry.sha)
        return;
      changed = true;
      if (entry === null) byName.delete(name);
      else byName.set(name, entry);
    };
    for (const [name, edit] of folder.files) {
      const old = byName.get(name);
      if (old && old.mode !== "100644" && old.mode !== "100755" && old.mode !== "120000")
        throw new Unusual(); // a folder or a submodule where the path names a file
      put(name, edit && { mode: edit.mode, name, sha: edit.blob });
    }
    for (const [name, sub] of folder.folders) {
      const old = byName.get(name);
      if (old && old.mode !== "40000") throw new Unusual(); // a file where a folder is wanted
      const made = await this.#edit(old?.sha ?? null, sub, batch);
      put(name, made === null ? null : { mode: "40000", name, sha: made });
    }
    if (!changed) return sha;
    const kept = [...byName.values()];
    // git rebuilds this folder from its index: a mode it would rewrite or an empty subtree it
    // would drop would make its tree differ from a copy of these entries.
    if (kept.some((e) => !CANONICAL_MODES.has(e.mode) || e.sha === EMPTY_TREE)) throw new Unusual();
    if (kept.length === 0) return null;
    const sorted = sortEntries(kept);
    const made = batch.put("tree", serializeTree(sorted));
    this.#remember(made, sorted);
    return made;
  }

  async #tree(sha: string): Promise<TreeEntry[]> {
    const hit = this.#cache.get(sha);
    if (hit) {
      this.#cache.delete(sha); // most recently used last
      this.#cache.set(sha, hit);
      return hit;
    }
    const entries = parseTree(await this.objects.read(sha, "tree"));
    this.#remember(sha, entries);
    return entries;
  }

  #remember(sha: string, entries: TreeEntry[]): void {
    if (this.#cache.has(sha)) return;
    this.#cache.set(sha, entries);
    this.#held += entries.length + 1;
    for (const [old, held] of this.#cache) {
      if (this.#held <= CACHE_ENTRIES) break;
      this.#cache.delete(old);
      this.#held -= held.length + 1;
    }
  }
}
