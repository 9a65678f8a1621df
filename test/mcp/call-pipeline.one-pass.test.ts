/**
 * One pass per request (docs/decisions.md "one pass per request"), through the call pipeline on a
 * real KB: a concept_read resolves and reads its concept once — also when authorization reads the
 * target's facts first — and a concept_write indexes what it wrote without reading it back.
 * Counted where every concept read goes through (the store's readConceptFile) and at the realpath
 * syscall that starts each resolution.
 */
import { realpathSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Principal } from "../../src/auth/types.js";
import { silentLogger } from "../../src/logger.js";
import { runToolCall } from "../../src/mcp/call-pipeline.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { toolsFor } from "../../src/tools/registry.js";
import { makeTempKb, type TempKb } from "../support/tool-kb.js";

const MAP = "---\ntype: Map\nkind: map\n---\n";
const CONCEPT = "---\ntype: note\ntitle: Gateway\n---\n# Gateway\n\nThe edge router.\n";

const reader: Principal = {
  id: "reader",
  policy: {
    admin: false,
    rules: [{ kb: "test", access: "r", maps: ["infra"], journals: [], types: [] }],
  },
};

describe("one pass per request", () => {
  let kb: TempKb;
  let reads: string[];
  let mapLoads: number;

  const call = (name: string, args: Record<string, unknown>, principal = LOCAL_ADMIN) => {
    const specs = toolsFor(kb.settings);
    const deps = {
      kb: "test",
      runtime: kb.runtime,
      resolve: (n: string) => specs.find((s) => s.name === n),
      audit: null,
      logger: silentLogger,
    };
    return runToolCall(deps, name, args, { principal, transport: "in-memory", requestId: "t" });
  };

  beforeAll(async () => {
    kb = await makeTempKb({
      files: { "data/infra/_map.md": MAP, "data/infra/gateway.md": CONCEPT },
    });
    const store = kb.runtime.store;
    const readFile = store.readConceptFile.bind(store);
    const maps = store.maps.bind(store);
    store.readConceptFile = (id, wholeUpTo) => {
      reads.push(id);
      return readFile(id, wholeUpTo);
    };
    store.maps = () => {
      mapLoads++;
      return maps();
    };
  });
  afterAll(() => kb.cleanup());
  afterEach(() => vi.restoreAllMocks());

  const counted = async (run: () => Promise<{ isError?: boolean }>) => {
    reads = [];
    mapLoads = 0;
    const realpath = vi.spyOn(realpathSync, "native");
    const result = await run();
    expect(result.isError ?? false).toBe(false);
    const realpaths = realpath.mock.calls.length;
    realpath.mockRestore();
    return { reads, mapLoads, realpaths };
  };

  it("a read resolves its concept once: one realpath, one read, no listing of the maps", async () => {
    // The read checks its own map only (maps-cache.ts forId), never the whole map list; the
    // map's descriptor is read on the first read of the map (one more realpath), not after.
    await counted(() => call("concept_read", { id: "infra/gateway" }));
    const seen = await counted(() => call("concept_read", { id: "infra/gateway" }));
    expect(seen).toEqual({ reads: ["infra/gateway"], mapLoads: 0, realpaths: 1 });
  });

  it("a restricted reader's facts and the handler share that one read", async () => {
    const seen = await counted(() => call("concept_read", { id: "infra/gateway" }, reader));
    expect(seen.reads).toEqual(["infra/gateway"]);
    expect(seen.realpaths).toBe(1);
  });

  it("a write indexes the text it wrote instead of reading the file back", async () => {
    const seen = await counted(() =>
      call("concept_write", {
        id: "infra/router",
        frontmatter: { type: "note", title: "Router" },
        body: "# Router\n\nForwards packets.\n",
      }),
    );
    expect(seen.reads).toEqual([]);
    const hits = kb.runtime.index.search({
      query: "forwards packets",
      limit: 5,
      visibility: { all: true },
    });
    expect(hits.results.map((r) => r.id)).toContain("infra/router");
  });
});
