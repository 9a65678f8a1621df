/**
 * The rank thread (src/search/ranking/rank-thread.ts): a query handed to it answers what the same query
 * answers on the main thread; a failed or stuck thread hands the query back (null) and never
 * blocks longer than its wait; a forgotten file is opened again, so a replaced index file is
 * never read through a stale connection.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { RankThread } from "../../../src/search/ranking/rank-thread.js";
import { useTempDirs } from "../../support/temp-dir.js";

const newDir = useTempDirs("carto-rank-thread-");
const threads: RankThread[] = [];
afterEach(async () => {
  await Promise.all(threads.splice(0).map((t) => t.stop()));
});

function makeThread(waitMs?: number): RankThread {
  const thread = new RankThread(waitMs);
  threads.push(thread);
  return thread;
}

/** A WAL database at `file` holding `values` in table t. */
function writeDb(file: string, values: number[]): void {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE t(x INTEGER)");
  const insert = db.prepare("INSERT INTO t(x) VALUES (?)");
  for (const v of values) insert.run(v);
  db.close();
}

/** Starts the thread (the first start only spawns it) and waits until it takes queries. */
async function upAndRunning(thread: RankThread, file: string): Promise<void> {
  expect(thread.start(file, "SELECT 1", [])).toBeNull();
  for (let i = 0; i < 200 && !thread.ready; i++) await new Promise((r) => setTimeout(r, 10));
  expect(thread.ready).toBe(true);
}

describe("RankThread", () => {
  it("answers a query over an index file with the rows the file holds", async () => {
    const file = join(newDir(), "a.db");
    writeDb(file, [3, 1, 2]);
    const thread = makeThread();
    await upAndRunning(thread, file);
    const pending = thread.start(file, "SELECT x FROM t WHERE x >= ? ORDER BY x", [2]);
    expect(pending?.result()).toEqual([{ x: 2 }, { x: 3 }]);
    expect(thread.counts.answered).toBe(1);
  });

  it("hands a failing query back and keeps serving", async () => {
    const file = join(newDir(), "a.db");
    writeDb(file, [1]);
    const thread = makeThread();
    await upAndRunning(thread, file);
    expect(thread.start(file, "SELECT nope FROM t", [])?.result()).toBeNull();
    expect(thread.counts.handedBack).toBe(1);
    expect(thread.start(file, "SELECT x FROM t", [])?.result()).toEqual([{ x: 1 }]);
  });

  it("gives up on a thread that does not answer within its wait, and starts a new one", async () => {
    const file = join(newDir(), "a.db");
    writeDb(file, [1]);
    const thread = makeThread(100);
    await upAndRunning(thread, file);
    const slow =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000) SELECT count(*) AS c FROM n";
    const started = performance.now();
    expect(thread.start(file, slow, [])?.result()).toBeNull();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(thread.ready).toBe(false);
    await upAndRunning(thread, file);
    expect(thread.start(file, "SELECT x FROM t", [])?.result()).toEqual([{ x: 1 }]);
  });

  it("reads a replaced file afresh once the file is forgotten", async () => {
    const dir = newDir();
    const file = join(dir, "a.db");
    writeDb(file, [1]);
    const thread = makeThread();
    await upAndRunning(thread, file);
    expect(thread.start(file, "SELECT x FROM t", [])?.result()).toEqual([{ x: 1 }]);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    writeDb(file, [2]);
    // Without forget() the thread's open connection still reads the deleted file.
    expect(thread.start(file, "SELECT x FROM t", [])?.result()).toEqual([{ x: 1 }]);
    thread.forget(file);
    expect(thread.start(file, "SELECT x FROM t", [])?.result()).toEqual([{ x: 2 }]);
  });
});
