/**
 * Chunk vectors in the KB's index file (`.cartographer/index.db`, next to the FTS tables):
 *
 *   emb_vectors(hash → vector BLOB)   one row per distinct chunk text (chunk.ts hash)
 *   emb_chunks(concept, seq → hash, start)   the chunks of each embedded concept
 *   emb_docs(concept → hash, space)   the concept content hash whose chunks are all embedded
 *
 * The tables are not part of the FTS schema version: a rebuild of the word index keeps them, so
 * a reindex of an unchanged KB costs no provider call. Queries are brute-force cosine over an
 * in-memory copy of the vectors (vector-matrix.ts: patched by each write), measured fast
 * enough at 100,000 chunks (docs/benchmarks.md); visibility and scope are a SQL query over
 * `concepts` that yields the allowed ids BEFORE ranking, so a narrow role still gets a full
 * page (D118).
 */
import type Database from "better-sqlite3";
import type { Visibility } from "../../kb/core/types.js";
import { scopeSql } from "../scope.js";
import { andAll, type SqlFragment } from "../sql-fragment.js";
import { visibilitySql } from "../visibility-sql.js";
import { createKernel } from "./dot-kernel.js";
import { storedVectorDefect } from "./vector-defect.js";
import { VectorMatrix } from "./vector-matrix.js";

const DDL = `
CREATE TABLE IF NOT EXISTS emb_vectors (hash TEXT PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS emb_chunks (
  concept TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL, start INTEGER NOT NULL,
  PRIMARY KEY (concept, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS emb_docs (concept TEXT PRIMARY KEY, hash TEXT NOT NULL, space TEXT NOT NULL) WITHOUT ROWID;
`;

export interface VectorHit {
  id: string;
  /** Cosine similarity of the concept's best chunk. */
  score: number;
  /** Offset in the body of that chunk's section. */
  start: number;
}

export interface StoredChunk {
  hash: string;
  start: number;
}

/** Past this share of appended rows, the matrix is reloaded whole (vector-matrix.ts). */
const MAX_DRIFT = 0.25;

export class VectorStore {
  private ready = new WeakSet<Database.Database>();
  /** The in-memory vectors of `db`; null until the first query (or after a reload is due). */
  private loaded: { db: Database.Database; matrix: VectorMatrix } | null = null;

  /**
   * `db` is asked for each time: the index may recreate its file (a damaged one moved aside).
   * `space` (EmbeddingClient.space) selects the vectors queried: another model's are ignored.
   */
  constructor(
    private readonly db: () => Database.Database,
    private readonly space: string,
  ) {}

  private handle(): Database.Database {
    const db = this.db();
    if (!this.ready.has(db)) {
      db.exec(DDL);
      this.ready.add(db);
    }
    return db;
  }

  /** Concepts whose embedded content hash or space differs from the index (or is missing). */
  staleConcepts(): string[] {
    return this.handle()
      .prepare(
        `SELECT c.id FROM concepts c LEFT JOIN emb_docs d ON d.concept = c.id
         WHERE d.hash IS NOT c.hash OR d.space IS NOT ? ORDER BY c.id`,
      )
      .pluck()
      .all(this.space) as string[];
  }

  /** Title, body and content hash of indexed concepts (the text embedded; no file is read). */
  texts(
    ids: readonly string[],
  ): Array<{ id: string; title: string | null; body: string; hash: string }> {
    const stmt = this.handle().prepare(
      "SELECT c.id, c.title, b.body, c.hash FROM concepts c JOIN bodies b ON b.concept = c.rowid WHERE c.id = ?",
    );
    return ids.flatMap((id) => {
      const row = stmt.get(id) as
        | { id: string; title: string | null; body: string; hash: string }
        | undefined;
      return row ? [row] : [];
    });
  }

  /** Which of `hashes` have no stored vector. */
  missing(hashes: readonly string[]): string[] {
    const stmt = this.handle().prepare("SELECT 1 FROM emb_vectors WHERE hash = ?").pluck();
    return hashes.filter((h) => stmt.get(h) === undefined);
  }

  /**
   * Records concepts as embedded (vectors, chunk lists, content hash) in one transaction. A
   * concept whose content changed since its text was read is skipped: the next pass retakes it.
   */
  record(
    vectors: ReadonlyMap<string, Float32Array>,
    docs: ReadonlyArray<{ id: string; hash: string; chunks: readonly StoredChunk[] }>,
  ): void {
    const db = this.handle();
    const putVector = db.prepare("INSERT OR IGNORE INTO emb_vectors(hash, vector) VALUES (?, ?)");
    const dropChunks = db.prepare("DELETE FROM emb_chunks WHERE concept = ?");
    const putChunk = db.prepare(
      "INSERT INTO emb_chunks(concept, seq, hash, start) VALUES (?, ?, ?, ?)",
    );
    const putDoc = db.prepare(
      "INSERT INTO emb_docs(concept, hash, space) VALUES (?, ?, ?) ON CONFLICT(concept) DO UPDATE SET hash = excluded.hash, space = excluded.space",
    );
    const current = db.prepare("SELECT hash FROM concepts WHERE id = ?").pluck();
    const recorded: Array<{ id: string; chunks: readonly StoredChunk[] }> = [];
    db.transaction(() => {
      for (const [hash, v] of vectors)
        putVector.run(hash, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      for (const doc of docs) {
        if (current.get(doc.id) !== doc.hash) continue;
        dropChunks.run(doc.id);
        doc.chunks.forEach((c, seq) => {
          putChunk.run(doc.id, seq, c.hash, c.start);
        });
        putDoc.run(doc.id, doc.hash, this.space);
        recorded.push(doc);
      }
    })();
    this.patch(db, recorded, vectors);
  }

  /** Brings the loaded matrix in line with what record() wrote (or drops it for a reload). */
  private patch(
    db: Database.Database,
    docs: ReadonlyArray<{ id: string; chunks: readonly StoredChunk[] }>,
    vectors: ReadonlyMap<string, Float32Array>,
  ): void {
    const loaded = this.loaded;
    if (!loaded || loaded.db !== db || docs.length === 0) return;
    const { matrix } = loaded;
    const stored = db.prepare("SELECT vector FROM emb_vectors WHERE hash = ?").pluck();
    for (const doc of docs) {
      const rows = doc.chunks.map((c) => ({
        vector: vectors.get(c.hash) ?? floats(stored.get(c.hash) as Buffer | undefined),
        start: c.start,
      }));
      if (rows.some((r) => r.vector.length !== matrix.dims)) {
        this.loaded = null; // another length: reload (which keeps one length)
        return;
      }
      matrix.replace(doc.id, rows);
    }
    if (matrix.drift > MAX_DRIFT) this.loaded = null;
  }

  /** Drops the chunks of concepts no longer indexed and vectors no chunk uses. Returns rows dropped. */
  prune(): number {
    const db = this.handle();
    let n = 0;
    let gone: string[] = [];
    db.transaction(() => {
      gone = db
        .prepare("SELECT concept FROM emb_docs WHERE concept NOT IN (SELECT id FROM concepts)")
        .pluck()
        .all() as string[];
      n += db
        .prepare("DELETE FROM emb_chunks WHERE concept NOT IN (SELECT id FROM concepts)")
        .run().changes;
      n += db
        .prepare("DELETE FROM emb_docs WHERE concept NOT IN (SELECT id FROM concepts)")
        .run().changes;
      n += db
        .prepare("DELETE FROM emb_vectors WHERE hash NOT IN (SELECT hash FROM emb_chunks)")
        .run().changes;
    })();
    // Vectors no chunk uses were never in the matrix; removed concepts retire their rows.
    for (const id of gone) this.loaded?.matrix.replace(id, []);
    return n;
  }

  /** Forgets which concepts are embedded (vectors stay): the next pass re-chunks every concept. */
  forgetDocs(): void {
    this.handle().exec("DELETE FROM emb_docs");
    this.loaded = null;
  }

  /** Chunk rows stored (for status and the benchmark). */
  chunkCount(): number {
    return this.handle().prepare("SELECT count(*) FROM emb_chunks").pluck().get() as number;
  }

  /**
   * The `limit` concepts most similar to `query` (unit length), best first, among the concepts
   * `visibility` and `scope` allow — filtered before ranking (D118).
   */
  nearest(
    query: Float32Array,
    opts: { visibility: Visibility; scope?: string; limit: number },
  ): VectorHit[] {
    const data = this.load();
    if (!data || data.dims !== query.length || opts.limit <= 0) return [];
    const allowed = this.allowedOwners(data, opts.visibility, opts.scope);
    const { best, bestStart } = data.score(query, allowed);
    return topK(best, opts.limit).map((o) => ({
      id: data.idOf(o),
      score: best[o] as number,
      start: bestStart[o] as number,
    }));
  }

  /** null = every concept allowed; else 1 per allowed owner index. */
  private allowedOwners(
    data: VectorMatrix,
    visibility: Visibility,
    scope: string | undefined,
  ): Uint8Array | null {
    const scopeFilter = scopeSql(scope, "c");
    if (visibility.all && !scopeFilter) return null;
    const filters: SqlFragment[] = [visibilitySql(visibility, "c")];
    if (scopeFilter) filters.push(scopeFilter);
    const where = andAll(filters);
    const ids = new Set(
      this.handle()
        .prepare(`SELECT c.id FROM concepts c WHERE ${where.sql}`)
        .pluck()
        .all(...where.params) as string[],
    );
    const allowed = new Uint8Array(data.owners);
    for (let o = 0; o < allowed.length; o++) if (ids.has(data.idOf(o))) allowed[o] = 1;
    return allowed;
  }

  private load(): VectorMatrix | null {
    const db = this.handle();
    if (this.loaded?.db === db) return this.loaded.matrix;
    const rows = db
      .prepare(
        `SELECT ch.concept AS concept, ch.start AS start, v.vector AS vector, v.hash AS hash
         FROM emb_chunks ch JOIN emb_vectors v ON v.hash = ch.hash
         JOIN emb_docs d ON d.concept = ch.concept WHERE d.space = ? ORDER BY ch.concept`,
      )
      .raw()
      .iterate(this.space) as IterableIterator<[string, number, Buffer, string]>;
    const ids: string[] = [];
    const owners: number[] = [];
    const starts: number[] = [];
    const vectors: Buffer[] = [];
    let dims = 0;
    const unusable: Array<{ concept: string; hash: string }> = [];
    for (const [concept, start, vector, hash] of rows) {
      // Stored before such vectors were refused: dropped here so the concept is embedded again.
      if (storedVectorDefect(vector) !== null) {
        unusable.push({ concept, hash });
        continue;
      }
      const d = vector.byteLength / 4;
      if (dims === 0) dims = d;
      if (d !== dims) continue; // a provider that changed its output length: skipped, not mixed
      if (ids[ids.length - 1] !== concept) ids.push(concept);
      owners.push(ids.length - 1);
      starts.push(start);
      vectors.push(vector);
    }
    if (unusable.length > 0) forgetUnusable(db, unusable);
    if (vectors.length === 0) return null;
    const kernel = createKernel(vectors.length, dims);
    const { matrix } = kernel;
    // Byte copy: a Buffer from SQLite need not be 4-byte aligned for a Float32Array view.
    const bytes = new Uint8Array(matrix.buffer, matrix.byteOffset, matrix.byteLength);
    vectors.forEach((buf, r) => {
      bytes.set(buf, r * dims * 4);
    });
    const loaded = new VectorMatrix(
      dims,
      kernel,
      Int32Array.from(owners),
      Int32Array.from(starts),
      ids,
    );
    this.loaded = { db, matrix: loaded };
    return loaded;
  }
}

/** Drops unusable vectors and marks their concepts stale (emb_docs row gone): re-embedded. */
function forgetUnusable(
  db: Database.Database,
  rows: ReadonlyArray<{ concept: string; hash: string }>,
): void {
  const dropVector = db.prepare("DELETE FROM emb_vectors WHERE hash = ?");
  const dropDoc = db.prepare("DELETE FROM emb_docs WHERE concept = ?");
  db.transaction(() => {
    for (const { concept, hash } of rows) {
      dropVector.run(hash);
      dropDoc.run(concept);
    }
  })();
}

/** A stored BLOB as floats (copied: a Buffer need not be 4-byte aligned). */
function floats(buf: Buffer | undefined): Float32Array {
  if (!buf) return new Float32Array(0);
  const out = new Float32Array(buf.byteLength / 4);
  new Uint8Array(out.buffer).set(buf);
  return out;
}

/** Indexes of the k largest finite scores, largest first (one pass, k-sized insertion list). */
function topK(scores: Float32Array, k: number): number[] {
  const at = (i: number) => scores[i] as number;
  const picked: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const s = at(i);
    if (s === Number.NEGATIVE_INFINITY) continue;
    if (picked.length === k && s <= at(picked[k - 1] as number)) continue;
    let pos = picked.length;
    while (pos > 0 && at(picked[pos - 1] as number) < s) pos--;
    picked.splice(pos, 0, i);
    if (picked.length > k) picked.pop();
  }
  return picked;
}
