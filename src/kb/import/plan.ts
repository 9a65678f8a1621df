/**
 * The import planner: a scan of the source in, the plan out (ids, completed frontmatter,
 * rewritten bodies, assets, collisions, problems). Nothing is read or written here; the
 * driver (run.ts) applies the plan to a KB. Pure.
 */
import { posix } from "node:path";
import { isKbError } from "../../common/errors.js";
import { parseDocument } from "../core/frontmatter.js";
import { completeFrontmatter } from "./complete.js";
import { assignDestinations, type Destination } from "./destinations.js";
import { SourceIndex } from "./resolve.js";
import { rewriteNoteLinks } from "./rewrite.js";
import { assetNameOf, firstFree } from "./slug.js";
import type {
  ImportOptions,
  ImportPlan,
  PlannedAsset,
  PlannedConcept,
  ScanResult,
  SourceFile,
} from "./types.js";

/** An asset's limit (the store's asset_write limit, src/kb/store/assets.ts). */
export const IMPORT_ASSET_MAX_BYTES = 1024 * 1024;

/** Hands each attachment to the first note that references it (docs/decisions.md "Import"). */
class AssetClaims {
  private readonly byRel = new Map<string, PlannedAsset>();
  private readonly namesByOwner = new Map<string, Set<string>>();
  readonly tooLarge = new Map<string, SourceFile>();

  constructor(private readonly files: ReadonlyMap<string, SourceFile>) {}

  claim(rel: string, owner: string, into: PlannedAsset[]): string | null {
    const known = this.byRel.get(rel);
    if (known) return known.path;
    const file = this.files.get(rel);
    if (!file) return null;
    if (file.size > IMPORT_ASSET_MAX_BYTES) {
      this.tooLarge.set(rel, file);
      return null;
    }
    const names = this.namesByOwner.get(owner) ?? new Set<string>();
    this.namesByOwner.set(owner, names);
    const name = firstFree(assetNameOf(posix.basename(rel)), (n) => names.has(n));
    names.add(name);
    const asset: PlannedAsset = {
      source: rel,
      path: `data/${owner}/${name}`,
      owner,
      size: file.size,
    };
    this.byRel.set(rel, asset);
    into.push(asset);
    return asset.path;
  }

  claimed(rel: string): boolean {
    return this.byRel.has(rel);
  }
}

export function buildImportPlan(scan: ScanResult, opts: ImportOptions): ImportPlan {
  const notes = [...scan.notes].sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const dest = assignDestinations(
    notes.map((n) => n.rel),
    opts,
  );
  const bySource = new Map<string, Destination>(dest.entries.map((d) => [d.source, d]));
  const index = new SourceIndex(notes, scan.files);
  const claims = new AssetClaims(new Map(scan.files.map((f) => [f.rel, f])));
  const plan: ImportPlan = {
    concepts: [],
    maps: [],
    collisions: dest.collisions,
    unresolved: [],
    errors: [...dest.errors],
    ignored: [],
  };
  const parsed = new Map<string, ReturnType<typeof parseDocument>>();
  for (const note of notes) {
    if (!bySource.has(note.rel)) continue;
    try {
      parsed.set(note.rel, parseDocument(note.text));
    } catch (err) {
      if (!isKbError(err)) throw err;
      plan.errors.push({
        source: note.rel,
        message: `${err.message} (fix the note's frontmatter: flat key: value pairs)`,
      });
      bySource.delete(note.rel);
    }
  }
  for (const note of notes) {
    const d = bySource.get(note.rel);
    const doc = parsed.get(note.rel);
    if (!d || !doc) continue;
    const assets: PlannedAsset[] = [];
    const rewritten = rewriteNoteLinks(doc.body, {
      from: note.rel,
      fromPath: `data/${d.id}.md`,
      index,
      note: (rel) => bySource.get(rel) ?? null,
      asset: (rel) => claims.claim(rel, d.id, assets),
    });
    for (const link of rewritten.unresolved) plan.unresolved.push({ source: note.rel, link });
    const stem = posix.basename(note.rel).replace(/\.md$/i, "");
    const concept: PlannedConcept = {
      source: note.rel,
      id: d.id,
      path: d.path,
      expand: d.expand,
      frontmatter: completeFrontmatter(doc.frontmatter, doc.body, stem),
      body: rewritten.body,
      assets,
    };
    plan.concepts.push(concept);
  }
  for (const [rel, file] of claims.tooLarge) {
    plan.errors.push({
      source: rel,
      message: `attachment is ${file.size} bytes; assets are at most ${IMPORT_ASSET_MAX_BYTES} (1 MiB): shrink it or keep it outside the KB (its links are left as written)`,
    });
  }
  plan.ignored = scan.files
    .map((f) => f.rel)
    .filter((r) => !claims.claimed(r) && !claims.tooLarge.has(r));
  plan.maps = [...new Set(plan.concepts.map((c) => c.id.split("/")[0] as string))].sort();
  return plan;
}
