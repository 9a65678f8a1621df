/**
 * listConcepts (lint, validate, graph_neighbors, contradiction_report) never holds a concept file
 * over MAX_CONCEPT_BYTES whole (docs/decisions.md "A concept file over 4 MiB is indexed from its
 * head"): it reads its first INDEX_HEAD_BYTES and streams its content hash, so the document's hash
 * is still the file's true one.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { contentHash } from "../../../src/kb/core/hash.js";
import { INDEX_HEAD_BYTES, MAX_CONCEPT_BYTES } from "../../../src/kb/store/index-read.js";
import { initKb, openKb } from "../../../src/kb/store/store.js";
import { useTempDirs } from "../../support/temp-dir.js";

const identity = { name: "test", email: "test@localhost" };
let root: string;
let file: string;

const shared = useTempDirs("carto-list-huge-", "file");

beforeAll(async () => {
  root = path.join(shared(), "kb");
  await initKb(root, { identity });
  fs.mkdirSync(path.join(root, "data/logs"), { recursive: true });
  fs.writeFileSync(path.join(root, "data/logs/small.md"), "---\ntype: note\n---\nsmall\n");
  file = path.join(root, "data/logs/huge.md");
  fs.writeFileSync(file, "---\ntype: note\ntitle: Huge\n---\nfirst line links [[logs/small]]\n");
  const lines = "the gateway restored the quiet backup \r\n".repeat(25_000);
  while (fs.statSync(file).size <= MAX_CONCEPT_BYTES * 3) fs.appendFileSync(file, lines);
});

describe("listConcepts with a concept over the limit", () => {
  it("holds only its head, with the whole file's content hash", async () => {
    const store = await openKb({
      name: "kb",
      root,
      allowArtifactWrite: false,
      autocommit: true,
      gitAuthor: identity,
    });
    const before = process.memoryUsage().rss;
    const docs = await store.listConcepts();
    const growth = process.memoryUsage().rss - before;
    expect(docs.map((d) => d.id)).toEqual(["logs/huge", "logs/small"]);
    const huge = docs[0];
    expect(huge?.title).toBe("Huge");
    expect(huge?.body.startsWith("first line links [[logs/small]]")).toBe(true);
    expect(huge?.body.length).toBeLessThanOrEqual(INDEX_HEAD_BYTES);
    // A whole read of these 24 MiB costs ~7× that; the head read a few MiB.
    expect(growth / 1024 / 1024).toBeLessThan(64);
    expect(huge?.hash).toBe(contentHash(fs.readFileSync(file, "utf8")));
  });
});
