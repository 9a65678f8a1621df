/**
 * concept_read of a concept file over MAX_CONCEPT_BYTES (docs/decisions.md "Tools handle concepts
 * whole up to 8 MiB") answers in bounded memory: its header with the whole file's hash (a valid
 * if_match) and the body's opening, `truncated: true`; section, outline and full, which need the
 * whole text, are `too_large`. Writes and patches whose result would be over that limit are refused
 * the same way.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentHash } from "../../../src/kb/core/hash.js";
import { MAX_CONCEPT_BYTES } from "../../../src/kb/store/index-read.js";
import { readTools } from "../../../src/tools/families/read.js";
import { LARGE_BODY_BYTES } from "../../../src/tools/families/read-concepts.js";
import { writeTools } from "../../../src/tools/families/write.js";
import { callTool } from "../../support/call-tool.js";
import { expectKbError, makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

let kb: TempKb;
let file: string;
const read = (args: Record<string, unknown>) =>
  // biome-ignore lint/suspicious/noExplicitAny: tool results are plain JSON, checked field by field
  callTool(kb.runtime, tool(readTools, "concept_read"), args) as Promise<any>;

beforeAll(async () => {
  kb = await makeTempKb({
    files: { "data/logs/_map.md": "---\ntype: Map\ntitle: Logs\nkind: map\n---\n# Logs\n" },
  });
  file = path.join(kb.root, "data/logs/huge.md");
  fs.writeFileSync(file, "---\ntype: note\ntitle: Huge\n---\n# Huge\n\nopening line\n");
  const line = "## Entry\nthe gateway restored the quiet backup\n".repeat(20_000);
  while (fs.statSync(file).size <= MAX_CONCEPT_BYTES * 2) fs.appendFileSync(file, line);
});
afterAll(async () => kb.cleanup());

describe("concept_read of a concept over the read limit", () => {
  it("answers the header, the whole file's hash and the body's opening, truncated", async () => {
    const before = process.memoryUsage().rss;
    const r = await read({ id: "logs/huge" });
    const growth = process.memoryUsage().rss - before;
    expect(r.truncated).toBe(true);
    expect(r.bytes).toBe(fs.statSync(file).size);
    expect(r.frontmatter).toMatchObject({ type: "note", title: "Huge" });
    expect(r.body.startsWith("# Huge\n\nopening line\n")).toBe(true);
    expect(r.body.length).toBe(LARGE_BODY_BYTES);
    expect(r.outline).toBeUndefined();
    // Reading 16 MiB whole costs ~7× that; the chunked read holds a few MiB.
    expect(growth / 1024 / 1024).toBeLessThan(64);
    expect(r.hash).toBe(contentHash(fs.readFileSync(file, "utf8")));
  });

  it("refuses section, outline and full with too_large naming the size and the limit", async () => {
    for (const args of [{ section: "Entry" }, { outline: true }, { full: true }]) {
      const e = await expectKbError(() => read({ id: "logs/huge", ...args }), "too_large");
      expect(e.message).toContain(`${MAX_CONCEPT_BYTES}-byte limit`);
      expect(e.message).toContain(String(fs.statSync(file).size));
      expect(e.message).not.toContain(kb.root);
    }
  });
});

describe("writes over the concept limit", () => {
  const write = (name: string, args: Record<string, unknown>) =>
    callTool(kb.runtime, tool(writeTools, name), args);
  const fm = { type: "note", title: "Big" };

  it("refuses concept_write of a body over the limit, and a patch that grows one past it", async () => {
    const over = "x".repeat(MAX_CONCEPT_BYTES + 1);
    const e = await expectKbError(
      () => write("concept_write", { id: "logs/big", frontmatter: fm, body: over }),
      "too_large",
    );
    expect(e.message).toContain(`${MAX_CONCEPT_BYTES}-byte limit`);
    expect(fs.existsSync(path.join(kb.root, "data/logs/big.md"))).toBe(false);

    const under = "y".repeat(MAX_CONCEPT_BYTES - 1024);
    await write("concept_write", { id: "logs/big", frontmatter: fm, body: `${under}\nEND` });
    await expectKbError(
      () =>
        write("concept_patch", { id: "logs/big", old_string: "END", new_string: "z".repeat(4096) }),
      "too_large",
    );
    expect(fs.statSync(path.join(kb.root, "data/logs/big.md")).size).toBeLessThan(
      MAX_CONCEPT_BYTES,
    );
  });
});

describe("concept_read's size check before the read", () => {
  it("never lists the maps for an id below a map (the read checks its own map only), huge file too", async () => {
    fs.writeFileSync(
      path.join(kb.root, "data/logs/small.md"),
      "---\ntype: note\ntitle: S\n---\nok\n",
    );
    const store = kb.runtime.store;
    const maps = store.maps.bind(store);
    let calls = 0;
    store.maps = () => {
      calls++;
      return maps();
    };
    try {
      expect((await read({ id: "logs/small" })).body.trim()).toBe("ok");
      // The read looks at its own map's descriptor alone (maps-cache.ts forId), never the list.
      expect(calls).toBe(0);
      expect((await read({ id: "logs/huge" })).truncated).toBe(true);
      expect(calls).toBe(0);
    } finally {
      store.maps = maps;
    }
  });
});
