/**
 * The import target of a KB no process holds: plans through the store, applied under its lock
 * with the batch semantics of `concept_batch` (every write planned first, one apply, one
 * commit per chunk), or every chunk applied and one commit at the end (--commit, as Go).
 * Concepts are created, never replaced: a write that meets an existing file fails alone.
 */
import { isKbError } from "../../common/errors.js";
import type { KbStore, WritePlan } from "../core/api.js";
import { mapBatched } from "../store/fsutil.js";
import type { ChunkOutcome, ChunkWork, Failure, ImportTarget } from "./target.js";

export interface LocalTargetOptions {
  /** One commit for the whole import with this message (--commit / --message). */
  commitOnce?: string;
  /** Names the source in per-chunk commit messages. */
  label: string;
}

const messageOf = (err: unknown) =>
  isKbError(err) ? `${err.code}: ${err.message}` : ((err as Error)?.message ?? String(err));

async function attempt<T>(
  what: string,
  fn: () => Promise<T>,
  failed: Failure[],
): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    failed.push({ what, message: messageOf(err) });
    return null;
  }
}

export class LocalTarget implements ImportTarget {
  readonly via = "local" as const;
  private commits = 0;
  private readonly pending: string[] = [];

  constructor(
    private readonly store: KbStore,
    private readonly opts: LocalTargetOptions,
  ) {}

  async existingConcepts(ids: readonly string[]): Promise<Set<string>> {
    const found = await mapBatched([...ids], 32, async (id) =>
      (await this.store.tryReadConcept(id)) ? id : null,
    );
    return new Set(found.filter((id): id is string => id !== null));
  }

  async existingAssets(paths: readonly string[]): Promise<Set<string>> {
    const found = await mapBatched([...paths], 32, (path) =>
      this.store
        .readAsset(path)
        .then(() => path)
        .catch((err: unknown) => {
          if (isKbError(err, "not_found")) return null;
          throw err;
        }),
    );
    return new Set(found.filter((p): p is string => p !== null));
  }

  async existingMaps(): Promise<Set<string>> {
    return new Set((await this.store.maps()).map((m) => m.name));
  }

  async createMaps(names: readonly string[]): Promise<Failure[]> {
    const failed: Failure[] = [];
    if (names.length === 0) return failed;
    await this.store.withLock(async () => {
      const paths: string[] = [];
      for (const name of names) {
        const plan = await attempt(
          name,
          () => this.store.planMapCreate({ name, kind: "map", title: name }),
          failed,
        );
        if (plan) paths.push(...(await this.store.apply(plan)).paths);
      }
      await this.commit(paths, `import: maps ${names.join(", ")}`);
    });
    return failed;
  }

  async writeChunk(work: ChunkWork): Promise<ChunkOutcome> {
    const outcome: ChunkOutcome = { written: [], failed: [], assetsWritten: [], assetsFailed: [] };
    await this.store.withLock(async () => {
      const plans: WritePlan[] = [];
      for (const c of work.concepts) {
        const plan = await attempt(
          c.id,
          () =>
            this.store.planConceptWrite({
              id: c.id,
              frontmatter: c.frontmatter,
              body: c.body,
              mode: "create",
            }),
          outcome.failed,
        );
        if (plan) plans.push(plan);
      }
      if (plans.length === 0) return;
      const paths = [
        ...(await this.store.apply(this.store.planBatch(plans, work.concepts[0]?.id ?? ""))).paths,
      ];
      outcome.written = plans.map((p) => p.target);
      const written = new Set(outcome.written);
      for (const { asset, bytes } of work.assets) {
        if (!written.has(asset.owner)) continue;
        const plan = await attempt(
          asset.path,
          () => this.store.planAssetWrite({ path: asset.path, bytes }),
          outcome.assetsFailed,
        );
        if (!plan) continue;
        paths.push(...(await this.store.apply(plan)).paths);
        outcome.assetsWritten.push(asset.path);
      }
      for (const c of work.concepts) {
        if (!c.expand || !written.has(c.id)) continue;
        const plan = await attempt(
          c.id,
          () => this.store.planConceptExpand({ id: c.id }),
          outcome.failed,
        );
        if (plan) paths.push(...(await this.store.apply(plan)).paths);
      }
      await this.commit(paths, `import: ${this.opts.label} (${work.index}/${work.count})`);
    });
    return outcome;
  }

  async finish(): Promise<number> {
    if (this.opts.commitOnce !== undefined && this.pending.length > 0) {
      const message = this.opts.commitOnce;
      await this.store.withLock(async () => {
        if ((await this.store.commit([...new Set(this.pending)], message)) !== null) this.commits++;
      });
    }
    return this.commits;
  }

  /** Commits now, or keeps the paths for the one commit of --commit. */
  private async commit(paths: string[], message: string): Promise<void> {
    if (paths.length === 0) return;
    if (this.opts.commitOnce !== undefined) {
      this.pending.push(...paths);
      return;
    }
    if ((await this.store.commit(paths, message)) !== null) this.commits++;
  }
}
