/**
 * A 50 MB concept is indexed in bounded memory (docs/decisions.md "A concept file over 4 MiB is
 * indexed from its head"): the index reads its head and streams its hash
 * (src/kb/store/index-read.ts) instead of holding the file, its decoded text and the hash's
 * normalized copies (~340 MiB at peak before). It is still found by its title and by a word of its
 * first part, and the hash the index answers is the file's true content hash.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { contentHash } from "../../src/kb/core/hash.js";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { initKb, openKb } from "../../src/kb/store/store.js";
import { openKbIndex } from "../../src/search/kb-index.js";
import { useTempDirs } from "../support/temp-dir.js";

const identity = { name: "test", email: "test@localhost" };
const HUGE_BYTES = 50 * 1024 * 1024;
const MiB = 1024 * 1024;
let root: string;

/** Peak resident set of this process so far (VmHWM), or the current RSS off Linux. */
function peakRss(): number {
  try {
    const status = fs.readFileSync("/proc/self/status", "utf8");
    const kib = /VmHWM:\s+(\d+)/.exec(status)?.[1];
    if (kib) return Number(kib) * 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage().rss;
}

/** Writes ~50 MB of log lines in 1 MiB pieces, so the test itself never holds the file. */
function writeHugeConcept(file: string): void {
  fs.writeFileSync(file, "---\ntype: note\ntitle: Enormous telemetry log\n---\n");
  fs.appendFileSync(file, "The first entry names the zebrafinch relay.\n");
  let size = 0;
  for (let piece = 0; size < HUGE_BYTES; piece++) {
    const lines: string[] = [];
    for (let n = 0; n < 16_384; n++)
      lines.push(`${piece}.${n}: the gateway restored the quiet backup \r`);
    const text = `${lines.join("\n")}\n`;
    fs.appendFileSync(file, text);
    size += text.length;
  }
  fs.appendFileSync(file, "tailonlymarker\n\n");
}

const sandbox = useTempDirs("carto-huge-");

beforeEach(async () => {
  root = path.join(sandbox(), "kb");
  await initKb(root, { identity });
  fs.mkdirSync(path.join(root, "data/logs"), { recursive: true });
  fs.writeFileSync(
    path.join(root, "data/logs/_map.md"),
    "---\ntype: Map\ntitle: Logs\nkind: map\n---\n# Logs\n",
  );
  fs.writeFileSync(
    path.join(root, "data/logs/small.md"),
    "---\ntype: note\ntitle: Small\n---\nhi\n",
  );
  writeHugeConcept(path.join(root, "data/logs/huge.md"));
});

describe("a 50 MB concept in the KB", () => {
  it("is indexed with bounded memory growth and found by title and by a word of its head", async () => {
    const store = await openKb({
      name: "kb",
      root,
      allowArtifactWrite: false,
      autocommit: true,
      gitAuthor: identity,
    });
    const before = peakRss();
    const { index, stats } = await openKbIndex(store);
    const growth = peakRss() - before;
    try {
      expect(stats.added).toBe(2);
      // The whole-file read peaked ~340 MiB above this; the head read stays far below.
      expect(growth / MiB).toBeLessThan(150);
      const byTitle = index.search({ query: "telemetry", limit: 10, visibility: VISIBLE_ALL });
      expect(byTitle.results.map((r) => r.id)).toEqual(["logs/huge"]);
      const byWord = index.search({ query: "zebrafinch", limit: 10, visibility: VISIBLE_ALL });
      expect(byWord.results.map((r) => r.id)).toEqual(["logs/huge"]);
      // Past the indexed prefix (docs/search.md): not found, by design.
      const tail = index.search({ query: "tailonlymarker", limit: 10, visibility: VISIBLE_ALL });
      expect(tail.results).toEqual([]);
      const listed = index.list({ prefix: "logs/huge", limit: 1, visibility: VISIBLE_ALL });
      const whole = fs.readFileSync(path.join(root, "data/logs/huge.md"), "utf8");
      expect(listed.items[0]?.hash).toBe(contentHash(whole));
    } finally {
      index.close();
    }
  });
});
