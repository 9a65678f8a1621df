/**
 * What sections share within one run: a temp dir, the generated 10,000-concept KB (generated
 * once, on first use), its store and its open index.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { KbStore } from "../src/kb/core/api.js";
import type { KbSettings } from "../src/kb/core/types.js";
import { openKb } from "../src/kb/store/store.js";
import { openKbIndex } from "../src/search/kb-index.js";
import type { SqliteSearchIndex } from "../src/search/sqlite-index.js";
import { BENCH_GIT_ENV, type GeneratedConcept, generateKb } from "./gen-kb.js";

export const KB_CONCEPTS = 10_000;
export const KB_MAPS = 8;
export const KB_SEED = 42;

export interface GeneratedKb {
  root: string;
  concepts: GeneratedConcept[];
  maps: string[];
  generateMs: number;
}

export class BenchContext {
  private kbPromise: Promise<GeneratedKb> | null = null;
  private index: SqliteSearchIndex | null = null;

  private constructor(readonly tmpRoot: string) {}

  static async create(): Promise<BenchContext> {
    return new BenchContext(await fs.mkdtemp(path.join(os.tmpdir(), "carto-bench-")));
  }

  /** Progress lines go to stderr; the table goes to stdout. */
  log(message: string): void {
    process.stderr.write(`bench: ${message}\n`);
  }

  kb(): Promise<GeneratedKb> {
    this.kbPromise ??= (async () => {
      const root = path.join(this.tmpRoot, "kb");
      this.log(`generating ${KB_CONCEPTS} concepts in ${KB_MAPS} maps under ${root}`);
      const start = performance.now();
      const concepts = await generateKb(root, {
        concepts: KB_CONCEPTS,
        maps: KB_MAPS,
        seed: KB_SEED,
      });
      const maps = [...new Set(concepts.map((c) => c.map))];
      return { root, concepts, maps, generateMs: performance.now() - start };
    })();
    return this.kbPromise;
  }

  settings(root: string): KbSettings {
    const identity = { name: BENCH_GIT_ENV.GIT_AUTHOR_NAME, email: BENCH_GIT_ENV.GIT_AUTHOR_EMAIL };
    return {
      name: "bench",
      root,
      allowArtifactWrite: false,
      autocommit: true,
      gitAuthor: identity,
    };
  }

  async store(): Promise<KbStore> {
    return openKb(this.settings((await this.kb()).root));
  }

  /** The KB's index, opened (and reconciled) once per run. */
  async kbIndex(): Promise<SqliteSearchIndex> {
    if (!this.index) this.index = (await openKbIndex(await this.store())).index;
    return this.index;
  }

  async close(): Promise<void> {
    this.index?.close();
    this.index = null;
    // git may still be packing in the background (auto gc): retry instead of failing the run.
    await fs.rm(this.tmpRoot, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}
