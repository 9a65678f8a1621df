/**
 * A re-read concept's hash is reused only for the same text (hash-memo.ts): an outside edit that
 * keeps the file's size and times still gets its own hash, and an unchanged re-read is not hashed
 * again.
 */
import { statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../../src/kb/core/api.js";
import { contentHash } from "../../../src/kb/core/hash.js";
import { HashMemo } from "../../../src/kb/store/hash-memo.js";
import { freshKb } from "../helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe("HashMemo", () => {
  it("hashes a path's text once while it stays the same, again when it changes", () => {
    const memo = new HashMemo();
    const a = "---\ntype: note\n---\nalpha\n";
    const b = "---\ntype: note\n---\nbravo\n";
    expect(memo.hashOf("data/x.md", a)).toBe(contentHash(a));
    expect(memo.hashOf("data/x.md", `${a}`)).toBe(contentHash(a));
    expect(memo.hashed).toBe(1);
    expect(memo.hashOf("data/x.md", b)).toBe(contentHash(b));
    expect(memo.hashOf("data/y.md", a)).toBe(contentHash(a));
    expect(memo.hashed).toBe(3);
  });

  it("forgets the oldest texts beyond its budget and still answers right", () => {
    const memo = new HashMemo();
    const big = (i: number) => `${String(i).padStart(6, "0")}${"x".repeat(60 * 1024)}`;
    for (let i = 0; i < 200; i++) memo.hashOf(`p${i}`, big(i));
    expect(memo.hashOf("p0", big(0))).toBe(contentHash(big(0)));
    expect(memo.hashed).toBe(201); // p0 was dropped: hashed again
    expect(memo.hashOf("p199", big(199))).toBe(contentHash(big(199)));
    expect(memo.hashed).toBe(201); // the newest is kept
  });
});

describe("the store's concept read", () => {
  it("answers the new hash after an outside edit with the same size, mtime and ctime order", async () => {
    const kb = await freshKb();
    cleanups.push(kb.cleanup);
    const path = join(kb.root, "data", "note.md");
    const before = "---\ntype: note\n---\nalpha\n";
    const after = "---\ntype: note\n---\nbravo\n";
    writeFileSync(path, before);
    const hashOf = async (store: KbStore) =>
      (await store.readConceptFile("note", Number.POSITIVE_INFINITY))?.doc.hash;
    expect(await hashOf(kb.store)).toBe(contentHash(before));
    const { atime, mtime } = statSync(path);
    writeFileSync(path, after); // same size; same mtime put back below
    utimesSync(path, atime, mtime);
    expect(await hashOf(kb.store)).toBe(contentHash(after));
  });

  it("does not hash an unchanged concept again", async () => {
    const kb = await freshKb();
    cleanups.push(kb.cleanup);
    writeFileSync(join(kb.root, "data", "note.md"), "---\ntype: note\n---\nalpha\n");
    const memo = (kb.store as unknown as { hashes: HashMemo }).hashes;
    const start = memo.hashed;
    for (let i = 0; i < 3; i++) await kb.store.readConcept("note");
    expect(memo.hashed - start).toBe(1);
  });
});
