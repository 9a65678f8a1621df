/**
 * The deferred quick_check runs only when the previous process did not close the index itself
 * (clean-close.ts): a clean close leaves a mark the next open takes; a process that
 * dies, or closes mid-transaction, leaves none, and its successor checks the file.
 */
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { openSearchIndex } from "../../src/search/sqlite-index.js";
import { useTempDirs } from "../support/temp-dir.js";
import { doc } from "./docs.js";

const newDir = useTempDirs("carto-clean-close-");
let dbPath: string;
beforeEach(() => {
  dbPath = join(newDir(), "index.db");
  const index = openSearchIndex(dbPath);
  index.reconcile([doc("ops/a"), doc("ops/b")]);
  index.close();
});

describe("the deferred quick_check after a clean close", () => {
  it("is skipped once after a clean close; an open that found no mark checks", async () => {
    const first = openSearchIndex(dbPath, { deferQuickCheck: true });
    expect(await first.checkIntegrity()).toBe("skipped");
    // The mark was taken: a second open while the first is still in use finds none.
    const second = openSearchIndex(dbPath, { deferQuickCheck: true });
    expect(await second.checkIntegrity()).toBe("ok");
    second.close();
    first.close();
  });

  it("runs after a process that died without closing", async () => {
    const dying = openSearchIndex(dbPath, { deferQuickCheck: true });
    dying.database().close(); // the handle goes away as with a crash: no close(), no mark
    const next = openSearchIndex(dbPath, { deferQuickCheck: true });
    expect(await next.checkIntegrity()).toBe("ok");
    next.close();
  });

  it("runs after a close in the middle of a transaction (a build cut short)", async () => {
    const cut = openSearchIndex(dbPath, { deferQuickCheck: true });
    cut.database().exec("BEGIN");
    cut.upsert(doc("ops/c"));
    cut.close();
    const next = openSearchIndex(dbPath, { deferQuickCheck: true });
    expect(await next.checkIntegrity()).toBe("ok");
    expect(next.count()).toBe(2); // the cut transaction rolled back
    next.close();
  });
});
