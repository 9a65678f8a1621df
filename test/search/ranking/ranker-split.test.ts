/**
 * How a search shares its rankers with the rank thread (src/search/ranking/ranker-split.ts): a query of
 * 2+ terms that must all match sends the trigram ranker there; a single-term query sends nothing
 * (its word ranker's bound counts few matches, here). Answers equal ranking everything on one thread,
 * also when the thread fails every query it is given (each part is then done here).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../../src/kb/core/types.js";
import {
  type OffThread,
  offThreadFor,
  RankThread,
} from "../../../src/search/ranking/rank-thread.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../../src/search/sqlite-index.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { doc } from "../docs.js";

const WORDS = ["gateway", "router", "backup", "alert", "latency", "disk"];
const OTHER = WORDS.slice(2);

function corpus() {
  return Array.from({ length: 300 }, (_, i) =>
    doc(`m/c${String(i).padStart(3, "0")}`, {
      frontmatter: {
        type: "note",
        // Every 10th title names a gateway router, each of another length (few equal scores):
        // the trigram ranker fills a short page with them.
        title:
          i % 10 === 0
            ? `Gateway router ${"x".repeat(i / 10)}`
            : `${OTHER[i % 4]} ${OTHER[(i * 7) % 4]}`,
      },
      body: Array.from({ length: 5 + (i % 40) }, (_, k) => WORDS[(i + k * 3) % 6]).join(" "),
    }),
  );
}

const newDir = useTempDirs("carto-split-", "file");
let file: string;
let plain: SqliteSearchIndex;
const thread = new RankThread();

beforeAll(async () => {
  file = join(newDir(), "index.db");
  plain = openSearchIndex(file, { offThread: false });
  plain.reconcile(corpus());
  thread.start(file, "SELECT 1", []); // starts it
  for (let i = 0; i < 200 && !thread.ready; i++) await new Promise((r) => setTimeout(r, 10));
});
afterAll(async () => {
  plain?.close();
  await thread.stop();
});

/** An OffThread over `target` that records the SQL handed to the thread. */
function recording(target: string): { off: OffThread; sent: string[] } {
  const sent: string[] = [];
  const inner = offThreadFor(target, thread, 0);
  return {
    sent,
    off: {
      ...inner,
      start: (sql, params) => {
        sent.push(sql);
        return inner.start(sql, params);
      },
    },
  };
}

const ask = (index: SqliteSearchIndex, query: string, limit = 5) =>
  index.search({ query, limit, visibility: VISIBLE_ALL });

describe("ranker split", () => {
  it("sends nothing for one term, the trigram ranker for 2+ terms", () => {
    const { off, sent } = recording(file);
    const split = openSearchIndex(file, { offThread: off });
    try {
      const before = thread.counts.answered;
      expect(ask(split, "gateway")).toEqual(ask(plain, "gateway"));
      expect(sent).toEqual([]);
      expect(ask(split, "gateway router", 20)).toEqual(ask(plain, "gateway router", 20));
      expect(sent.at(-1)).toMatch(/bm25\(concepts_tri/);
      expect(thread.counts.answered - before).toBe(1);
    } finally {
      split.close();
    }
  });

  it("answers the same when the thread fails every query it is given", () => {
    const { off } = recording(join(newDir(), "missing.db"));
    const split = openSearchIndex(file, { offThread: off });
    try {
      const before = thread.counts.handedBack;
      for (const q of ["gateway", "gateway router", "alert disk", "backup"])
        expect(ask(split, q, 7)).toEqual(ask(plain, q, 7));
      expect(thread.counts.handedBack - before).toBeGreaterThanOrEqual(2);
    } finally {
      split.close();
    }
  });
});
