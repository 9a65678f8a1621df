/**
 * The data of an import (docs/import.md): what the source walk found, the options, and the plan
 * the planner derives from both. Pure types.
 */
import type { Frontmatter } from "../core/types.js";

/** One Markdown note of the source, read whole. `rel` is source-relative, POSIX, as on disk. */
export interface SourceNote {
  rel: string;
  text: string;
}

/** One non-Markdown file of the source (read only when a note references it). */
export interface SourceFile {
  rel: string;
  size: number;
}

/** What the bounded walk of the source found (scan.ts). */
export interface ScanResult {
  notes: SourceNote[];
  files: SourceFile[];
  /** Source-relative paths of symlinks, never followed. */
  symlinks: string[];
}

/** One `--map <srcdir>=<map>` entry, normalized: `from` is "." for the source root. */
export interface MapRule {
  from: string;
  to: string;
}

export interface ImportOptions {
  /** Source folder name: the concept name of the source root under --dir-as-concept. */
  sourceName: string;
  maps: MapRule[];
  defaultMap?: string;
  dirAsConcept: boolean;
}

/** An attachment copied as an asset of the first note that references it. */
export interface PlannedAsset {
  source: string;
  /** KB-root-relative, `data/<owner id>/<name>`. */
  path: string;
  owner: string;
  size: number;
}

export interface PlannedConcept {
  source: string;
  id: string;
  /** Where the concept ends up: `data/<id>.md`, or `data/<id>/index.md` when `expand`. */
  path: string;
  /** Written flat, then expanded (--dir-as-concept's folder concepts). */
  expand: boolean;
  frontmatter: Frontmatter;
  /** Links rewritten relative to the flat path `data/<id>.md` (expanding recomputes them). */
  body: string;
  assets: PlannedAsset[];
}

/** Why a note's id is not its plain name. */
export type CollisionReason = "duplicate" | "reserved" | "no_usable_characters";

export interface Collision {
  /** The id the name normalized to. */
  name: string;
  reason: CollisionReason;
  /** Each source and the id it got, in source order. */
  assigned: Array<{ source: string; id: string }>;
}

export interface PlanProblem {
  source: string;
  message: string;
}

export interface ImportPlan {
  concepts: PlannedConcept[];
  /** Top-level maps the concepts land in. */
  maps: string[];
  collisions: Collision[];
  /** Links that named nothing in the source: left as written. */
  unresolved: Array<{ source: string; link: string }>;
  /** Notes that cannot be imported (unreadable frontmatter, an id too deep…). */
  errors: PlanProblem[];
  /** Non-Markdown files no note references: not copied. */
  ignored: string[];
}
