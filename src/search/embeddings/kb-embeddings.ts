/**
 * One KB's embeddings: background passes that bring the vectors in line with the index, and
 * the semantic and hybrid queries. A pass embeds only concepts whose content hash changed
 * (vector-store.ts emb_docs) and, within them, only chunk texts with no stored vector, so an
 * unchanged KB costs no provider call. Passes run after a write (kick()), once the index build
 * is ready, and every `pollMs` (catching reconciles of edits made outside the server); they are
 * never awaited by a tool call. A failing provider is logged once per outage and retried by the
 * next pass. A vector that cannot be used (all zero, not finite: vector-defect.ts) is not
 * stored and its concept stays stale, so later passes ask again; logged once per burst.
 */
import type Database from "better-sqlite3";
import { KbError } from "../../common/errors.js";
import type { Logger } from "../../logger.js";
import type { SearchHit, SearchQuery, SearchResult } from "../api.js";
import type { PathExists } from "../search-query.js";
import { makeSnippet, SNIPPET_LENGTH } from "../snippet.js";
import { chunkConcept } from "./chunk.js";
import { DEFAULT_POLL_MS } from "./config.js";
import type { EmbeddingClient } from "./provider.js";
import { reciprocalRankFusion } from "./rrf.js";
import { type VectorHit, VectorStore } from "./vector-store.js";

/** Concepts per provider round (their missing chunks go out in the client's batches). */
const CONCEPTS_PER_ROUND = 64;
/** Candidates each ranking contributes to a hybrid fusion. */
const FUSION_DEPTH = 30;
/** How long close() waits for a provider call under way. */
const CLOSE_GRACE_MS = 2_000;

export interface KbEmbeddingsOptions {
  /** The index's SQLite handle (asked each time: a damaged file is recreated). */
  db: () => Database.Database;
  client: EmbeddingClient;
  /** Keyword search of the same index (the other half of hybrid). */
  keyword: (query: SearchQuery) => SearchResult;
  logger: Logger;
  kb: string;
  pollMs?: number;
  /** Resolves when the index build is ready (the first pass waits for it). */
  indexReady?: () => Promise<void>;
  /** Whether an indexed path still names a file (hits of a vanished concept are dropped). */
  exists?: PathExists;
}

export interface SemanticResult {
  results: SearchHit[];
  match: "semantic" | "hybrid";
  /** Present while a pass is embedding: results cover what is embedded so far. */
  embeddings?: { state: "embedding"; done: number; total: number };
}

export interface PassStats {
  concepts: number;
  chunksEmbedded: number;
  /** Concepts left stale because the provider answered an unusable vector for a chunk. */
  rejected: string[];
}

export class KbEmbeddings {
  readonly store: VectorStore;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private failing = false;
  /** A pass met unusable vectors and that was logged; cleared by a pass without any. */
  private rejecting = false;
  private progress: { done: number; total: number } | null = null;
  private readonly queryCache = new Map<string, Float32Array>();
  /** Passes the provider failed (a pass that throws), for the metrics' provider-error count. */
  providerErrors = 0;

  constructor(private readonly opts: KbEmbeddingsOptions) {
    this.store = new VectorStore(opts.db, opts.client.space);
  }

  /** Starts the background passes (first one once the index is ready). */
  start(): void {
    void (async () => {
      await this.opts.indexReady?.();
      if (!this.closed) this.kick();
    })();
  }

  /** Schedules a pass now (coalesced with one under way). Never throws, never waits. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.loop().finally(() => {
      this.running = null;
      this.schedule();
    });
  }

  /** Resolves once no pass runs or is pending (tests, the benchmark). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Stops the passes. A provider call under way is waited for at most CLOSE_GRACE_MS: shutdown
   * must not hang on a slow provider; the pass then writes nothing (it checks `closed`).
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (!this.running) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.running,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_GRACE_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }

  /** One pass, awaited (tests, the benchmark); a provider failure throws. */
  async pass(): Promise<PassStats> {
    const stale = this.store.staleConcepts();
    const stats: PassStats = { concepts: 0, chunksEmbedded: 0, rejected: [] };
    this.progress = { done: 0, total: stale.length };
    try {
      for (let i = 0; i < stale.length && !this.closed; i += CONCEPTS_PER_ROUND) {
        const round = await this.embedRound(stale.slice(i, i + CONCEPTS_PER_ROUND));
        stats.concepts += round.concepts;
        stats.chunksEmbedded += round.chunksEmbedded;
        stats.rejected.push(...round.rejected);
        this.progress = {
          done: Math.min(stale.length, i + CONCEPTS_PER_ROUND),
          total: stale.length,
        };
      }
      if (!this.closed) this.store.prune();
    } finally {
      this.progress = null;
    }
    return stats;
  }

  /** Semantic (`mode: semantic`) or reciprocal-rank fusion with keyword (`mode: hybrid`). */
  async search(query: SearchQuery, mode: "semantic" | "hybrid"): Promise<SemanticResult> {
    const vector = await this.embedQuery(query.query);
    // Twice the page: hits whose file vanished are dropped without a second query.
    const depth = mode === "hybrid" ? Math.max(FUSION_DEPTH, query.limit) : query.limit * 2;
    const nearest = this.store.nearest(vector, { ...query, limit: depth });
    let results: SearchHit[];
    if (mode === "semantic") {
      results = this.toHits(nearest, query.limit);
    } else {
      // Fused by id first; only the page's semantic-only hits are then read for their snippets.
      const keyword = this.opts.keyword({ ...query, limit: depth }).results;
      const fused = reciprocalRankFusion<{ id: string }>([keyword, nearest], depth * 2);
      const keywordHit = new Map(keyword.map((h) => [h.id, h]));
      results = [];
      for (const item of fused) {
        if (results.length >= query.limit) break;
        const hit = keywordHit.get(item.id) ?? this.toHits([item as VectorHit], 1)[0];
        if (hit) results.push(hit);
      }
    }
    const p = this.progress;
    return {
      results,
      match: mode,
      ...(p && p.total > 0 ? { embeddings: { state: "embedding" as const, ...p } } : {}),
    };
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        const stats = await this.pass();
        if (this.failing) this.opts.logger.info(`embeddings of KB '${this.opts.kb}' resumed`);
        this.failing = false;
        if (stats.chunksEmbedded > 0)
          this.opts.logger.info(
            `embeddings of KB '${this.opts.kb}': ${stats.concepts} concepts, ${stats.chunksEmbedded} chunks embedded`,
          );
        this.noteRejected(stats.rejected);
      } catch (err) {
        if (!this.closed) this.providerErrors++;
        if (!this.failing && !this.closed)
          this.opts.logger.warn(
            `embeddings of KB '${this.opts.kb}' paused: ${(err as Error).message}; semantic search answers from the vectors stored, the next pass retries`,
          );
        this.failing = true;
        return;
      }
    } while (this.again && !this.closed);
  }

  /** One warning when a burst of unusable vectors starts, one note when a pass has none. */
  private noteRejected(rejected: readonly string[]): void {
    if (rejected.length === 0) {
      if (this.rejecting)
        this.opts.logger.info(`embeddings of KB '${this.opts.kb}': every vector usable again`);
      this.rejecting = false;
      return;
    }
    if (this.rejecting || this.closed) return;
    this.rejecting = true;
    const shown = rejected.slice(0, 5).join(", ");
    const more = rejected.length > 5 ? ` and ${rejected.length - 5} more` : "";
    this.opts.logger.warn(
      `embeddings of KB '${this.opts.kb}': the provider answered unusable vectors (all zero or not finite) for ${shown}${more}; they are left out of semantic search and asked for again by later passes`,
    );
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => this.kick(), this.opts.pollMs ?? DEFAULT_POLL_MS);
    this.timer.unref();
  }

  private async embedRound(ids: readonly string[]): Promise<PassStats> {
    const docs = this.store.texts(ids).map((t) => ({
      id: t.id,
      hash: t.hash,
      chunks: chunkConcept(this.opts.client.space, t.title, t.body),
    }));
    const text = new Map<string, string>();
    for (const d of docs) for (const c of d.chunks) text.set(c.hash, c.text);
    const missing = this.store.missing([...text.keys()]);
    const vectors = await this.opts.client.embed(missing.map((h) => text.get(h) ?? ""));
    if (this.closed) return { concepts: 0, chunksEmbedded: 0, rejected: [] }; // the index may be closed now
    const byHash = new Map<string, Float32Array>();
    const unusable = new Set<string>();
    missing.forEach((h, i) => {
      const v = vectors[i];
      if (v) byHash.set(h, v);
      else unusable.add(h);
    });
    // A concept with an unusable chunk is not recorded: it stays stale and is retried.
    const rejected = docs.filter((d) => d.chunks.some((c) => unusable.has(c.hash)));
    const rejectedIds = new Set(rejected.map((d) => d.id));
    this.store.record(
      byHash,
      docs
        .filter((d) => !rejectedIds.has(d.id))
        .map((d) => ({
          id: d.id,
          hash: d.hash,
          chunks: d.chunks.map(({ hash, start }) => ({ hash, start })),
        })),
    );
    return {
      concepts: docs.length - rejected.length,
      chunksEmbedded: byHash.size,
      rejected: [...rejectedIds],
    };
  }

  private async embedQuery(query: string): Promise<Float32Array> {
    const key = query.trim();
    const cached = this.queryCache.get(key);
    if (cached) return cached;
    const [vector] = await this.opts.client.embed([key]);
    if (!vector)
      throw new KbError(
        "internal",
        "the embedding provider answered an unusable vector (all zero or not finite) for this query; search with mode keyword, or rephrase",
      );
    if (this.queryCache.size >= 256) this.queryCache.clear();
    this.queryCache.set(key, vector);
    return vector;
  }

  /** The first `limit` of `nearest` as hits, best first (a vanished file is skipped). */
  private toHits(nearest: readonly VectorHit[], limit: number): SearchHit[] {
    if (nearest.length === 0) return [];
    const row = this.opts.db().prepare(
      `SELECT c.path, c.title, c.type, c.map, c.journal, substr(b.body, ? + 1, ${SNIPPET_LENGTH * 4}) AS section
         FROM concepts c JOIN bodies b ON b.concept = c.rowid WHERE c.id = ?`,
    );
    const hits: SearchHit[] = [];
    for (const n of nearest) {
      if (hits.length >= limit) break;
      const r = row.get(n.start, n.id) as
        | {
            path: string;
            title: string | null;
            type: string;
            map: string | null;
            journal: string | null;
            section: string;
          }
        | undefined;
      if (!r || (this.opts.exists && !this.opts.exists(r.path))) continue;
      const snippet = makeSnippet(r.section, []);
      hits.push({
        id: n.id,
        title: r.title,
        type: r.type,
        map: r.map,
        journal: r.journal,
        snippet: n.start > 0 && snippet !== "" ? `…${snippet}` : snippet,
      });
    }
    return hits;
  }
}
