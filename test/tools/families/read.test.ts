import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Visibility } from "../../../src/kb/core/types.js";
import { readTools } from "../../../src/tools/families/read.js";
import { callTool } from "../../support/call-tool.js";
import { expectKbError, makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

const concept = (type: string, title: string, body: string, extra = "") =>
  `---\ntype: ${type}\ntitle: ${title}\n${extra}---\n${body}\n`;

const PUB_ONLY: Visibility = { all: false, rules: [{ maps: ["pub"], journals: [], types: [] }] };
const MANY_HEADINGS = Array.from({ length: 55 }, (_, i) => `## H${i + 1}\n\ntext`).join("\n\n");
const bigBody = `# Big\n\n## Part one\n\n${"lorem ipsum ".repeat(6000)}\n\n## Part two\n\ntail\n`;

let kb: TempKb;
const call = (name: string, args: Record<string, unknown>, visibility?: Visibility) =>
  // biome-ignore lint/suspicious/noExplicitAny: tool results are plain JSON, checked field by field
  callTool(kb.runtime, tool(readTools, name), args, { visibility }) as Promise<any>;

beforeAll(async () => {
  kb = await makeTempKb({
    files: {
      "data/pub/_map.md": "---\ntype: Map\ntitle: Public\nkind: map\n---\n# Public\n",
      "data/pub/index.md": "---\ntype: Index\ntitle: Public\n---\n# Public\n\n- [[pub/alpha]]\n",
      "data/secret/_map.md": "---\ntype: Map\ntitle: Secret\nkind: map\n---\n",
      "data/pub/alpha.md": concept(
        "note",
        "Alpha",
        "# Alpha\n\nzebra once.\n\n## Details\n\nalpha details",
        "status: active\ntimestamp: 2024-05-01T10:00:00Z\n",
      ),
      "data/pub/beta.md": concept(
        "service",
        "Beta",
        "beta body links [[pub/alpha]]",
        "status: draft\ntimestamp: 2024-06-01\n",
      ),
      "data/pub/big.md": concept("note", "Big", bigBody),
      "data/secret/plan.md": concept("note", "Plan", "zebra zebra zebra zebra zebra zebra zebra"),
      "templates/note.md": "---\ntype: note\ntitle: {{title}}\n---\n{{body}}\n",
    },
  });
});
afterAll(async () => kb.cleanup());

describe("concept_read", () => {
  it("returns id, hash, frontmatter and body", async () => {
    const r = await call("concept_read", { id: "pub/alpha" });
    expect(r.id).toBe("pub/alpha");
    expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.frontmatter).toMatchObject({ type: "note", title: "Alpha" });
    expect(r.body).toContain("zebra once");
  });

  it("section returns that heading's text only", async () => {
    const r = await call("concept_read", { id: "pub/alpha", section: "Details" });
    expect(r.body).toBe("## Details\n\nalpha details");
  });

  it("a missing section fails listing the headings", async () => {
    const e = await expectKbError(
      () => call("concept_read", { id: "pub/alpha", section: "Nope" }),
      "not_found",
    );
    expect(e.message).toContain("Alpha | Details");
  });

  it("a missing section lists at most 50 headings and counts the rest", async () => {
    const toc = await makeTempKb({
      files: { "data/toc.md": concept("note", "Toc", MANY_HEADINGS) },
    });
    try {
      const read = tool(readTools, "concept_read");
      const e = await expectKbError(
        () => callTool(toc.runtime, read, { id: "toc", section: "Nope" }),
        "not_found",
      );
      expect(e.message).toContain("headings: H1 | H2");
      expect(e.message).toContain("| H50 (+5 more)");
      expect(e.message).not.toContain("H51");
    } finally {
      await toc.cleanup();
    }
  });

  it("outline returns headings without the body", async () => {
    const r = await call("concept_read", { id: "pub/alpha", outline: true });
    expect(r.body).toBeUndefined();
    expect(r.outline.map((h: { text: string }) => h.text)).toEqual(["Alpha", "Details"]);
  });

  it("a body over 60 KB answers the outline and a note unless full", async () => {
    const r = await call("concept_read", { id: "pub/big" });
    expect(r.body).toBeUndefined();
    expect(r.note).toMatch(/60 KB/);
    expect(r.outline.map((h: { text: string }) => h.text)).toEqual(["Big", "Part one", "Part two"]);
    const full = await call("concept_read", { id: "pub/big", full: true });
    expect(full.body.length).toBeGreaterThan(60 * 1024);
  });

  it("a missing concept is not_found and a bad id invalid_id", async () => {
    await expectKbError(() => call("concept_read", { id: "pub/none" }), "not_found");
    await expectKbError(() => call("concept_read", { id: "Pub/Alpha" }), "invalid_id");
  });
});

describe("concept_list", () => {
  it("lists with total and truncated under a limit", async () => {
    const r = await call("concept_list", { map: "pub", limit: 2 });
    expect(r.items).toHaveLength(2);
    expect(r.total).toBe(3);
    expect(r.truncated).toBe(true);
  });

  it("filters by type and where", async () => {
    const byType = await call("concept_list", { type: "service" });
    expect(byType.items.map((i: { id: string }) => i.id)).toEqual(["pub/beta"]);
    const byWhere = await call("concept_list", { where: ["status=active"] });
    expect(byWhere.items.map((i: { id: string }) => i.id)).toEqual(["pub/alpha"]);
  });

  it("since/until bound the frontmatter timestamp, inclusive; a date-only until covers its day", async () => {
    const ids = async (args: Record<string, unknown>) =>
      (await call("concept_list", args)).items.map((i: { id: string }) => i.id);
    expect(await ids({ since: "2024-05-01T10:00:00Z" })).toEqual(["pub/alpha", "pub/beta"]);
    expect(await ids({ since: "2024-05-02" })).toEqual(["pub/beta"]);
    expect(await ids({ until: "2024-05-01" })).toEqual(["pub/alpha"]);
    expect(await ids({ since: "2024-05-01", until: "2024-05-31" })).toEqual(["pub/alpha"]);
    await expectKbError(() => call("concept_list", { since: "last week" }), "invalid_argument");
  });

  it("from pages in id order: the next page starts at the id after the last one shown", async () => {
    const ids = async (args: Record<string, unknown>) =>
      (await call("concept_list", args)).items.map((i: { id: string }) => i.id);
    expect(await ids({ map: "pub", limit: 2 })).toEqual(["pub/alpha", "pub/beta"]);
    expect(await ids({ map: "pub", from: "pub/big", limit: 2 })).toEqual(["pub/big"]);
    expect(await ids({ map: "pub", from: "pub/b", limit: 5 })).toEqual(["pub/beta", "pub/big"]);
    // Visibility applies before the page: a narrow reader pages only through what it sees.
    const narrow = await call("concept_list", { from: "pub/big" }, PUB_ONLY);
    expect(narrow.items.map((i: { id: string }) => i.id)).toEqual(["pub/big"]);
    expect(await ids({ from: "pub/big" })).toEqual(["pub/big", "secret/plan"]);
  });

  it("a map disjoint from the prefix lists nothing", async () => {
    const r = await call("concept_list", { map: "pub", prefix: "secret" });
    expect(r).toEqual({ items: [], total: 0, truncated: false });
  });

  it("hidden concepts never count towards total", async () => {
    const all = await call("concept_list", {});
    const narrow = await call("concept_list", {}, PUB_ONLY);
    expect(all.total).toBe(4);
    expect(narrow.total).toBe(3);
    expect(JSON.stringify(narrow)).not.toContain("secret");
  });
});

describe("search", () => {
  it("finds by keyword, the best match first", async () => {
    const r = await call("search", { query: "zebra" });
    expect(r.results[0].id).toBe("secret/plan");
  });

  it("a hidden concept ranked first never appears, even with limit 1", async () => {
    const r = await call("search", { query: "zebra", limit: 1 }, PUB_ONLY);
    expect(r.results.map((h: { id: string }) => h.id)).toEqual(["pub/alpha"]);
    expect(JSON.stringify(r)).not.toContain("secret");
  });

  it("a query of only whitespace is invalid_argument, like an empty one", async () => {
    for (const query of ["", "   ", "\t\n"]) {
      const e = await expectKbError(() => call("search", { query }), "invalid_argument");
      expect(e.message).toContain("query");
    }
  });

  it("semantic and hybrid answer not_configured", async () => {
    const e = await expectKbError(
      () => call("search", { query: "x", mode: "semantic" }),
      "not_configured",
    );
    expect(e.message).toBe(
      "mode semantic needs an embedding provider: set search.embeddings {provider, url, model} in the server config (docs/search.md), or use mode keyword",
    );
    await expectKbError(() => call("search", { query: "x", mode: "hybrid" }), "not_configured");
  });
});

describe("KB-level reads", () => {
  it("index_get returns the root index and a map's index; a missing scope is not_found", async () => {
    const root = await call("index_get", {});
    expect(root.path).toBe("data/index.md");
    expect(root.hash).toMatch(/^[0-9a-f]{64}$/);
    const pub = await call("index_get", { scope: "pub" });
    expect(pub.content).toContain("[[pub/alpha]]");
    await expectKbError(() => call("index_get", { scope: "nomap" }), "not_found");
  });

  it("map_list and atlas_overview show only maps and counts the caller may see", async () => {
    const maps = await call("map_list", {});
    expect(maps.maps.map((m: { name: string }) => m.name)).toEqual(["pub", "secret"]);
    const narrow = await call("map_list", {}, PUB_ONLY);
    expect(narrow.maps.map((m: { name: string }) => m.name)).toEqual(["pub"]);
    const atlas = await call("atlas_overview", {}, PUB_ONLY);
    expect(atlas.concepts).toBe(3);
    expect(atlas.maps).toEqual([{ name: "pub", kind: "map", title: "Public", concepts: 3 }]);
  });

  it("template_list lists templates", async () => {
    const r = await call("template_list", {});
    expect(r.templates.map((t: { name: string }) => t.name)).toContain("note");
  });
});

describe("log_tail", () => {
  it("an empty log answers a JSON note, never silence", async () => {
    const r = await call("log_tail", {});
    expect(r.entries).toEqual([]);
    expect(r.note).toBe("log is empty");
  });

  it("returns entries newest first, limited", async () => {
    const store = kb.runtime.store;
    for (const [i, at] of ["2024-01-01T00:00:00Z", "2024-03-01T00:00:00Z"].entries()) {
      kb.runtime.beginWrite();
      await kb.runtime.apply(
        await store.planLogAppend({ scope: null, entry: `entry ${i}`, at: new Date(at) }),
      );
      kb.runtime.endWrite();
    }
    const r = await call("log_tail", { limit: 1 });
    expect(r.entries).toEqual([{ heading: "2024-03-01T00:00:00Z", text: "entry 1" }]);
    expect(r.total).toBe(2);
    expect(r.truncated).toBe(true);
  });

  it("an unknown map scope is not_found", async () => {
    await expectKbError(() => call("log_tail", { scope: "nomap" }), "not_found");
  });
});

describe("changes_since", () => {
  it("lists concepts changed in the window, hidden ones filtered before the limit", async () => {
    const all = await call("changes_since", { since: "1d" });
    const ids = all.changes.map((c: { id: string }) => c.id);
    expect(ids).toContain("secret/plan");
    expect(ids).toContain("pub/alpha");
    const narrow = await call("changes_since", { since: "1d" }, PUB_ONLY);
    expect(narrow.total).toBe(all.total - 1);
    expect(JSON.stringify(narrow)).not.toContain("secret");
  });

  it("a future ISO time yields nothing; a malformed since is invalid_argument", async () => {
    const r = await call("changes_since", {
      since: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(r.total).toBe(0);
    await expectKbError(() => call("changes_since", { since: "yesterday" }), "invalid_argument");
  });
});
