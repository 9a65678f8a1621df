/**
 * The reconcile pass reads the index's file bookkeeping in pages (kb-index.ts), letting other
 * calls run between them: one query over 10,000 rows held the event loop 50–230 ms at load 10–14
 * on every refresh. The pages must partition the rows, in id order.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openSearchIndex, type SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { doc } from "./docs.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

describe("indexedFiles in pages", () => {
  it("returns `limit` ids after `after`, in id order, covering every row once", () => {
    index = openSearchIndex(":memory:");
    const ids = Array.from({ length: 25 }, (_, i) => `m/c${String(i).padStart(2, "0")}`);
    index.reconcile([...ids].reverse().map((id) => doc(id)));
    const seen: string[] = [];
    const sizes: number[] = [];
    for (let after = ""; ; ) {
      const page = index.indexedFiles({ after, limit: 10 });
      sizes.push(page.size);
      for (const id of page.keys()) {
        seen.push(id);
        after = id;
      }
      if (page.size < 10) break;
    }
    expect(sizes).toEqual([10, 10, 5]);
    expect(seen).toEqual(ids);
    expect([...index.indexedFiles().keys()].sort()).toEqual(ids);
  });
});
