/**
 * The KB store shell: implements KbStore (src/kb/core/api.ts) over the pure core, plan builders,
 * atomic apply and git. Reads are lock-free; apply + commit run under `withLock`.
 */

import { access } from "node:fs/promises";
import { join } from "node:path";
import { KbError } from "../../common/errors.js";
import { normalizeRelPath } from "../../common/paths.js";
import { type Logger, silentLogger } from "../../logger.js";
import type {
  AppliedPlan,
  AssetInfo,
  BodyEdit,
  ChangeRecord,
  ConceptDeleteInput,
  ConceptFileStat,
  ConceptMove,
  ConceptPatchInput,
  ConceptRead,
  ConceptWriteInput,
  KbStore,
  SkillInfo,
  TemplateInfo,
  WritePlan,
} from "../core/api.js";
import { mergePlans } from "../core/plan-batch.js";
import type { PlanContext } from "../core/plan-context.js";
import type {
  ConceptDoc,
  Frontmatter,
  GitIdentity,
  KbSettings,
  MapDescriptor,
} from "../core/types.js";
import { UncommittedWrites } from "../git/commit-undo.js";
import { configuredIdentity, FALLBACK_IDENTITY, git, headSha, runGit } from "../git/git.js";
import { changesSince } from "../git/history.js";
import { PathCommitter } from "../git/path-commit.js";
import { AsyncLock } from "../locks/async-lock.js";
import { applyChanges } from "./apply.js";
import { artifactTreeStamp } from "./artifact-stamp.js";
import { type ArtifactScan, scanArtifacts } from "./artifacts.js";
import * as assets from "./assets.js";
import { readConceptFile } from "./concept-file.js";
import { streamConceptDocs } from "./concept-stream.js";
import { readTextOrNull } from "./fsutil.js";
import { HashMemo } from "./hash-memo.js";
import { MAX_CONCEPT_BYTES, readIndexDocs } from "./index-read.js";
import { ensureLocalState } from "./local-state.js";
import { MapsCache } from "./maps-cache.js";
import { listSkills, listTemplates } from "./store-catalog.js";
import * as admin from "./store-plans-admin.js";
import * as concept from "./store-plans-concept.js";
import { planConceptDelete } from "./store-plans-delete.js";
import { planConceptMove } from "./store-plans-move.js";
import { conceptIdOf, notFound, scanConcepts } from "./store-read.js";

export { initKb } from "./init.js";

/**
 * Shared by every store of the process, so the memory it holds is bounded however many KBs are
 * mounted. Paths of two KBs may collide: a hash is reused only for an equal text, whose hash it is.
 */
const SHARED_HASHES = new HashMemo();

class Store implements KbStore {
  readonly root: string;
  private readonly lock = new AsyncLock();
  private readonly mapsCache: MapsCache;
  /** The one commit per write (path-commit.ts). */
  readonly committer: PathCommitter;
  /** Hashes of concepts re-read unchanged (hash-memo.ts): one memory budget per process. */
  readonly hashes = SHARED_HASHES;
  private ownIdentity: Promise<GitIdentity | null> | null = null;
  private readonly ctx: PlanContext;
  /** What the files applied since the last commit looked like before (commit-undo.ts). */
  private readonly uncommitted: UncommittedWrites;

  constructor(
    readonly settings: KbSettings,
    private readonly logger: Logger,
  ) {
    this.root = settings.root;
    this.mapsCache = new MapsCache(this.root, logger);
    this.uncommitted = new UncommittedWrites(this.root);
    this.committer = new PathCommitter(this.root, settings.gitEnv);
    this.ctx = { root: this.root, settings, logger, maps: () => this.maps() };
  }

  maps(): Promise<MapDescriptor[]> {
    return this.mapsCache.get();
  }

  async scanConceptFiles(): Promise<ConceptFileStat[]> {
    return scanConcepts(this.root, await this.maps());
  }

  async listConcepts(): Promise<ConceptDoc[]> {
    const maps = await this.maps();
    const files = await scanConcepts(this.root, maps);
    // A file over MAX_CONCEPT_BYTES is read as its head (and streamed hash): lint, graph and
    // validate never hold a huge file whole (docs/search.md "Very large concepts").
    const docs = await readIndexDocs(this.root, files, maps, this.logger, MAX_CONCEPT_BYTES);
    return docs.filter((d): d is ConceptDoc => d !== null);
  }

  async *streamConcepts(files: readonly ConceptFileStat[]): AsyncGenerator<ConceptDoc> {
    yield* streamConceptDocs(this.root, files, await this.maps(), this.logger);
  }

  async readConcept(id: string): Promise<ConceptDoc> {
    const doc = await this.tryReadConcept(id);
    if (!doc) throw notFound(id);
    return doc;
  }

  async tryReadConcept(id: string): Promise<ConceptDoc | null> {
    return (await this.readConceptFile(id))?.doc ?? null;
  }

  async readConceptFile(id: string, wholeUpTo?: number): Promise<ConceptRead | null> {
    // Only the map the id names matters to its resolution and placement (maps-cache.ts).
    const maps = await this.mapsCache.forId(id);
    return readConceptFile(this.root, id, maps, this.logger, wholeUpTo, this.hashes);
  }

  readText(path: string): Promise<string | null> {
    return readTextOrNull(this.root, normalizeRelPath(path));
  }

  templates(): Promise<TemplateInfo[]> {
    return listTemplates(this.root);
  }
  assets(prefix?: string): Promise<AssetInfo[]> {
    return assets.listAssets(this.root, prefix);
  }
  readAsset(path: string) {
    return assets.readAsset(this.root, path);
  }
  artifacts(): Promise<AssetInfo[]> {
    return assets.listArtifacts(this.root);
  }
  readArtifact(path: string) {
    return assets.readArtifact(this.root, path);
  }
  skills(): Promise<SkillInfo[]> {
    return listSkills(this.root);
  }
  async provisioningArtifacts(): Promise<ArtifactScan> {
    const scan = await scanArtifacts(this.root, {
      instructionsName: this.settings.name,
      legacy: true,
    });
    if (scan.legacy.length > 0 && !this.legacyArtifactsWarned) {
      // Once per KB per process: the scan runs on every manifest call.
      this.legacyArtifactsWarned = true;
      this.logger.warn(
        `KB ${this.settings.name}: ${scan.legacy.length} artifact(s) read from the legacy artifacts/ folder (e.g. ${scan.legacy[0]}); move them to the KB root (git mv artifacts/skills skills, …)`,
      );
    }
    return scan;
  }
  private legacyArtifactsWarned = false;
  provisioningStamp(): string | null {
    return artifactTreeStamp(this.root, { legacy: true, instructions: true });
  }

  async changesSince(since: Date): Promise<ChangeRecord[]> {
    const maps = await this.maps();
    return changesSince(this.root, since, (p) => conceptIdOf(p, maps));
  }

  async gitStatus(): Promise<{ head: string | null; dirty: string[]; branch: string | null }> {
    const [head, branch, status] = await Promise.all([
      headSha(this.root),
      runGit(this.root, ["symbolic-ref", "--short", "-q", "HEAD"]),
      git(this.root, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]),
    ]);
    const dirty = status
      .split("\0")
      .filter((e) => e.length > 3)
      .map((e) => e.slice(3));
    return { head, dirty, branch: branch.code === 0 ? branch.stdout.trim() || null : null };
  }

  planConceptWrite(input: ConceptWriteInput) {
    return concept.planConceptWrite(this.ctx, input);
  }
  planConceptPatch(input: ConceptPatchInput) {
    return concept.planConceptPatch(this.ctx, input);
  }
  planConceptDelete(input: ConceptDeleteInput) {
    return planConceptDelete(this.ctx, input);
  }
  planConceptMove(input: { moves: ConceptMove[]; rewriteLinks: boolean }) {
    return planConceptMove(this.ctx, input);
  }
  planConceptExpand(input: { id: string }) {
    return concept.planConceptExpand(this.ctx, input);
  }
  planConceptNew(input: {
    id: string;
    template: string;
    variables: Record<string, string>;
    frontmatter?: Frontmatter;
  }) {
    return concept.planConceptNew(this.ctx, input);
  }
  planBatch(plans: WritePlan[], target: string): WritePlan {
    return mergePlans(plans, target);
  }
  planIndexPatch(input: {
    scope: string | null;
    edits?: BodyEdit[];
    append?: string;
    ifMatch?: string;
  }) {
    return admin.planIndexPatch(this.ctx, input);
  }
  planMapCreate(input: Parameters<KbStore["planMapCreate"]>[0]) {
    return admin.planMapCreate(this.ctx, input);
  }
  planMapDelete(input: { name: string }) {
    return admin.planMapDelete(this.ctx, input);
  }
  planLogAppend(input: { scope: string | null; entry: string; at: Date }) {
    return admin.planLogAppend(this.ctx, input);
  }
  planAssetWrite(input: { path: string; bytes: Uint8Array; ifMatch?: string }) {
    return assets.planAssetWrite(this.ctx, input);
  }
  planAssetDelete(input: { path: string; ifMatch?: string; force?: boolean }) {
    return assets.planAssetDelete(this.ctx, input);
  }
  planArtifactWrite(input: { path: string; bytes: Uint8Array; ifMatch?: string }) {
    return assets.planArtifactWrite(this.ctx, input);
  }
  planArtifactDelete(input: { path: string; ifMatch?: string }) {
    return assets.planArtifactDelete(this.ctx, input);
  }
  planSkillInstall(input: { name: string; files: Record<string, string> }) {
    return admin.planSkillInstall(this.ctx, input);
  }

  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(fn);
  }

  async apply(plan: WritePlan): Promise<AppliedPlan> {
    if (this.settings.autocommit) await this.uncommitted.remember(plan.changes.map((c) => c.path));
    await applyChanges(this.root, plan.changes);
    return { paths: [...new Set(plan.changes.map((c) => c.path))], touchedIds: plan.touchedIds };
  }

  /** Identity: argument → settings.gitAuthor → git's configured user → cartographer. */
  private async identity(author?: GitIdentity): Promise<GitIdentity> {
    return author ?? this.settings.gitAuthor ?? (await this.gitOwnIdentity()) ?? FALLBACK_IDENTITY;
  }

  /** git's own configured user, looked up once per store (two processes per commit otherwise). */
  private gitOwnIdentity(): Promise<GitIdentity | null> {
    this.ownIdentity ??= configuredIdentity(this.root);
    return this.ownIdentity;
  }

  async commit(paths: string[], message: string, author?: GitIdentity): Promise<string | null> {
    if (!this.settings.autocommit) return null;
    try {
      const sha = await this.committer.commit(paths, message, await this.identity(author));
      this.uncommitted.forget();
      return sha;
    } catch (e) {
      // A write is one commit or nothing: put the files and the git index back (commit-undo.ts).
      const left = await this.uncommitted.rollBack(this.logger);
      if (!(e instanceof KbError) || e.code !== "git_failed") throw e;
      const shown = `${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", …" : ""}`;
      throw left.length === 0
        ? new KbError(
            "git_failed",
            `the change was not committed and has been rolled back (${shown} as before): ${e.message}; fix git, then send the write again`,
            { paths, written: false, rolledBack: true },
          )
        : new KbError(
            "git_failed",
            `the change was not committed and could not be fully rolled back (${left.slice(0, 5).join(", ")} may hold the new content): ${e.message}; fix git, then commit or restore these files by hand`,
            { paths, written: true, rolledBack: false },
          );
    }
  }

  async snapshot(label: string): Promise<{ tag: string; sha: string }> {
    checkSnapshotLabel(label);
    const sha = await headSha(this.root);
    if (!sha) throw new KbError("conflict", "the KB has no commit to snapshot yet");
    const tag = `snapshot/${label}`;
    const exists = await runGit(this.root, ["rev-parse", "-q", "--verify", `refs/tags/${tag}`]);
    if (exists.code === 0)
      throw new KbError("already_exists", `snapshot tag ${tag} already exists: pick another label`);
    await git(this.root, ["tag", tag, sha]);
    return { tag, sha };
  }
}

/**
 * A label is used as given or refused: rewriting it (the old behaviour turned "bad label!" into
 * `bad-label`) tags a name the caller never asked for and cannot look up later. The rules keep
 * `snapshot/<label>` a valid git tag name.
 */
function checkSnapshotLabel(label: string): void {
  const ok =
    /^[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?$/.test(label) &&
    !label.includes("..") &&
    !label.endsWith(".lock");
  if (!ok) {
    throw new KbError(
      "invalid_argument",
      `snapshot label ${JSON.stringify(label)} is not allowed: use only A-Z a-z 0-9 . _ - (not starting or ending with . or -, no "..", no ".lock" ending), e.g. before-cleanup`,
      { argument: "label" },
    );
  }
}

/**
 * Opens a KB. Requires `data/index.md` (else `not_found` naming the path and the command that
 * creates a KB); ensures `.cartographer/` exists and is excluded from git.
 */
export async function openKb(
  settings: KbSettings,
  opts: { logger?: Logger } = {},
): Promise<KbStore> {
  const index = join(settings.root, "data", "index.md");
  try {
    await access(index);
  } catch {
    throw new KbError(
      "not_found",
      `${index} does not exist: not a KB (create one with \`cartographer kb create <name>\`)`,
      { path: index },
    );
  }
  await ensureLocalState(settings.root);
  return new Store(settings, opts.logger ?? silentLogger);
}
