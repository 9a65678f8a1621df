/**
 * The contract of the KB store shell (implemented in src/kb/store*.ts). Tools code against this
 * interface; the store implements it. Every mutation is PLAN then APPLY (design.md P2): a `plan*`
 * method validates everything (ids, reserved names, depth, palette, required fields, if_match)
 * and touches no disk; `apply` writes the plan atomically; `commit` makes the one git commit.
 * All failures are `KbError`s with stable codes.
 */
import type { ArtifactScan } from "../store/artifacts.js";
import type { ConceptDoc, Frontmatter, GitIdentity, KbSettings, MapDescriptor } from "./types.js";

/** One file change of a plan. `content: null` deletes the file. Paths are KB-root-relative. */
export interface FileChange {
  path: string;
  content: string | Uint8Array | null;
}

/** A fully validated mutation. Applying it is the only thing left to do. */
export interface WritePlan {
  changes: FileChange[];
  /** What the commit message names: `<tool>: <target>` (an id, a map name, a source id). */
  target: string;
  /** Concept ids whose file changed or disappeared (the search index re-syncs these). */
  touchedIds: string[];
  /** Tool-facing summary of the result (e.g. `{id, hash, created}`), JSON-serializable. */
  result: Record<string, unknown>;
}

export interface AppliedPlan {
  paths: string[];
  touchedIds: string[];
}

/** A single `old_string` → `new_string` edit of a concept body. */
export interface BodyEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export interface ConceptWriteInput {
  id: string;
  frontmatter: Frontmatter;
  body: string;
  /** Content hash the caller read; mismatch → `stale_write`. */
  ifMatch?: string;
  /** `create`: refuse an existing id (`already_exists`); `replace`: require it; `upsert`: either. */
  mode: "create" | "replace" | "upsert";
}

export interface ConceptPatchInput {
  id: string;
  /** Ordered edits, applied in order, atomically; the failing edit's index is named. */
  edits?: BodyEdit[];
  /** Shallow merge; `null` removes a key; removing `type` is refused. */
  frontmatter?: Record<string, unknown>;
  ifMatch?: string;
}

export interface ConceptDeleteInput {
  id: string;
  ifMatch?: string;
  /** Expanded concept: also delete every file under its folder (else satellites → `not_empty`). */
  recursive?: boolean;
  /** Only for an id with both files (expanded_ambiguous): delete exactly this one. */
  variant?: "flat" | "expanded";
}

export interface ConceptMove {
  from: string;
  to: string;
}

export interface ChangeRecord {
  id: string;
  change: "added" | "modified" | "deleted" | "moved";
  /** For moves: the previous id. */
  from?: string;
  /** ISO-8601 time of the newest commit touching it in the window. */
  last_time: string;
  authors: string[];
  subjects: string[];
  /**
   * The commits behind `subjects`, newest first: what each touched, so a tool can rebuild the
   * subjects a principal may see (a subject can name hidden ids). Never rendered as is.
   */
  commits?: ChangeCommit[];
}

/** One commit of a ChangeRecord: its subject and every concept id and other path it touched. */
export interface ChangeCommit {
  subject: string;
  /** Concept ids the commit touched, both sides of a rename, in commit order. */
  ids: string[];
  /** True when it also touched files that are not concepts (assets, indexes, logs, …). */
  otherPaths: boolean;
}

export interface AssetInfo {
  /** KB-root-relative path under data/, e.g. `data/infra/diagram.png`. */
  path: string;
  size: number;
  hash: string;
}

export interface TemplateInfo {
  name: string;
  variables: string[];
  path: string;
}

export interface SkillInfo {
  name: string;
  description: string;
  path: string;
}

/** A concept as read by {@link KbStore.readConceptFile}. */
export interface ConceptRead {
  doc: ConceptDoc;
  /** Size of the file, bytes. */
  bytes: number;
  /** `doc.body` is only the head of a file over `wholeUpTo` bytes (`doc.hash` is the file's). */
  truncated: boolean;
}

export interface ConceptFileStat {
  id: string;
  path: string;
  mtimeMs: number;
  size: number;
  /** True when the id has two files (`<id>.md` read, `<id>/index.md` beside it). */
  twin?: boolean;
}

export interface KbStore {
  readonly settings: KbSettings;
  readonly root: string;

  // ---- reads --------------------------------------------------------------------------
  /** Map and journal descriptors of the top-level folders, sorted by name. */
  maps(): Promise<MapDescriptor[]>;
  /** Every concept file (data/ and services/), with stat info only, sorted by id. */
  scanConceptFiles(): Promise<ConceptFileStat[]>;
  /**
   * Every concept, fully read, sorted by id — but a file over 8 MiB (MAX_CONCEPT_BYTES) only as
   * its first 4 MiB, with the whole file's content hash (bounded memory, index-read.ts).
   */
  listConcepts(): Promise<ConceptDoc[]>;
  /**
   * The concepts of `files` (from scanConceptFiles), in order, read a batch at a time (at most
   * 16 files or 1 MiB): a whole-KB pass holds one batch of texts, never the KB. Files gone since
   * the scan are skipped; a file over 8 MiB comes as its head, as in listConcepts.
   */
  streamConcepts(files: readonly ConceptFileStat[]): AsyncIterable<ConceptDoc>;
  /** Resolve and read one concept (`<id>.md`, then `<id>/index.md`). `not_found`, `invalid_id`. */
  readConcept(id: string): Promise<ConceptDoc>;
  /** Like readConcept but null when missing. */
  tryReadConcept(id: string): Promise<ConceptDoc | null>;
  /**
   * One resolution and one read of a concept, null when missing: the whole document, or for a
   * file over `wholeUpTo` bytes its head with the whole file's hash (`truncated`).
   */
  readConceptFile(id: string, wholeUpTo: number): Promise<ConceptRead | null>;
  /** Raw text of a KB-root-relative file (index.md, log.md, instructions.md …), null when missing. */
  readText(path: string): Promise<string | null>;
  templates(): Promise<TemplateInfo[]>;
  assets(prefix?: string): Promise<AssetInfo[]>;
  readAsset(path: string): Promise<{ info: AssetInfo; bytes: Uint8Array }>;
  artifacts(): Promise<AssetInfo[]>;
  readArtifact(path: string): Promise<{ info: AssetInfo; bytes: Uint8Array }>;
  skills(): Promise<SkillInfo[]>;
  /** Provisioning artifacts at the KB root (+ legacy artifacts/, warned once); docs/provisioning.md. */
  provisioningArtifacts(): Promise<ArtifactScan>;
  /** Validity stamp of what provisioningArtifacts reads (artifact-stamp.ts); null = too big to stamp. */
  provisioningStamp(): string | null;
  /** Git history of concepts since `since` (newest first), per concept. */
  changesSince(since: Date): Promise<ChangeRecord[]>;
  /** Commits since HEAD moved, uncommitted files etc. (kb_status). */
  gitStatus(): Promise<{ head: string | null; dirty: string[]; branch: string | null }>;

  // ---- plans (validate only, no disk writes) ------------------------------------------
  planConceptWrite(input: ConceptWriteInput): Promise<WritePlan>;
  planConceptPatch(input: ConceptPatchInput): Promise<WritePlan>;
  planConceptDelete(input: ConceptDeleteInput): Promise<WritePlan>;
  planConceptMove(input: { moves: ConceptMove[]; rewriteLinks: boolean }): Promise<WritePlan>;
  planConceptExpand(input: { id: string }): Promise<WritePlan>;
  planConceptNew(input: {
    id: string;
    template: string;
    variables: Record<string, string>;
    frontmatter?: Frontmatter;
  }): Promise<WritePlan>;
  /** Several plans validated together (distinct ids, all valid) merged into one. */
  planBatch(plans: WritePlan[], target: string): WritePlan;
  planIndexPatch(input: {
    scope: string | null;
    edits?: BodyEdit[];
    append?: string;
    ifMatch?: string;
  }): Promise<WritePlan>;
  planMapCreate(input: {
    name: string;
    kind: "map" | "journal";
    title?: string;
    conceptTypes?: string[];
    ontologyMode?: "strict" | "emergent" | "off";
    requiredFields?: string[];
  }): Promise<WritePlan>;
  planMapDelete(input: { name: string }): Promise<WritePlan>;
  planLogAppend(input: { scope: string | null; entry: string; at: Date }): Promise<WritePlan>;
  planAssetWrite(input: { path: string; bytes: Uint8Array; ifMatch?: string }): Promise<WritePlan>;
  planAssetDelete(input: { path: string; ifMatch?: string; force?: boolean }): Promise<WritePlan>;
  planArtifactWrite(input: {
    path: string;
    bytes: Uint8Array;
    ifMatch?: string;
  }): Promise<WritePlan>;
  planArtifactDelete(input: { path: string; ifMatch?: string }): Promise<WritePlan>;
  planSkillInstall(input: { name: string; files: Record<string, string> }): Promise<WritePlan>;

  // ---- apply and commit (call under withLock) ------------------------------------------
  /** Runs fn under the per-KB async write lock (FIFO). */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
  /** Writes a plan atomically: temp files first, then renames; rolls back on failure. */
  apply(plan: WritePlan): Promise<AppliedPlan>;
  /**
   * One commit of `paths` with `message` (`<tool>: <target>`). Returns the sha, or null when
   * nothing changed or autocommit is off. A failure throws `git_failed` after rolling back every
   * file applied since the last commit and unstaging it (`details.rolledBack`; commit-undo.ts).
   */
  commit(paths: string[], message: string, author?: GitIdentity): Promise<string | null>;
  /** Creates a lightweight tag / snapshot commit marker (snapshot tool). */
  snapshot(label: string): Promise<{ tag: string; sha: string }>;
}
