import { afterEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { doc } from "./docs.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

function seeded(): SqliteSearchIndex {
  index = openSearchIndex(":memory:");
  index.reconcile([
    doc("infra/rete/gateway", {
      frontmatter: { type: "service", title: "Network gateway", tags: ["network", "router"] },
      body: "The homelab network gateway is 10.10.0.1 (main router). It forwards DNS to the resolver.",
    }),
    doc("infra/rete/dns", {
      frontmatter: { type: "service", title: "DNS resolver" },
      body: "Unbound resolves names for the homelab; the gateway forwards queries here.",
    }),
    doc("infra/notes/backup", {
      frontmatter: { type: "runbook", title: "Backups" },
      body: `${"Filler text about storage. ".repeat(20)}Restic snapshots go to the NAS every night. ${"More filler. ".repeat(20)}`,
    }),
    doc("people/alice", {
      frontmatter: { type: "person", title: "Alice" },
      body: "Alice runs the gateway upgrades.",
    }),
  ]);
  return index;
}

const q = (query: string, extra: Partial<Parameters<SqliteSearchIndex["search"]>[0]> = {}) =>
  index.search({ query, limit: 10, visibility: VISIBLE_ALL, ...extra });

describe("search", () => {
  it("hits carry no score field: rank is the order (bm25 rounds to 0 on small KBs)", () => {
    seeded();
    for (const query of ["gateway", "etwork", "10.10"]) {
      const hits = q(query).results;
      expect(hits.length, query).toBeGreaterThan(0);
      for (const hit of hits) {
        expect(Object.keys(hit).sort()).toEqual([
          "id",
          "journal",
          "map",
          "snippet",
          "title",
          "type",
        ]);
      }
    }
  });

  it("ranks a title match above a body-only match", () => {
    seeded();
    const r = q("gateway");
    expect(r.match).toBe("all_terms");
    expect(r.results[0]?.id).toBe("infra/rete/gateway");
    expect(r.results.map((h) => h.id).sort()).toEqual([
      "infra/rete/dns",
      "infra/rete/gateway",
      "people/alice",
    ]);
  });

  it("matches word prefixes anywhere and substrings of id, title and tags, case-insensitively", () => {
    seeded();
    expect(q("RESOLV").results.map((h) => h.id)).toContain("infra/rete/dns");
    expect(q("snap").results.map((h) => h.id)).toEqual(["infra/notes/backup"]);
    expect(q("ESOLVE").results.map((h) => h.id)).toEqual(["infra/rete/dns"]);
    expect(q("etwork gate").results.map((h) => h.id)).toEqual(["infra/rete/gateway"]);
    expect(q("outer").results.map((h) => h.id)).toEqual(["infra/rete/gateway"]);
  });

  it("requires all terms first and falls back to any term", () => {
    seeded();
    expect(q("gateway alice")).toMatchObject({
      match: "all_terms",
      results: [{ id: "people/alice" }],
    });
    const any = q("restic unbound");
    expect(any.match).toBe("any_term");
    expect(any.results.map((h) => h.id).sort()).toEqual(["infra/notes/backup", "infra/rete/dns"]);
    expect(q("zzzqqq")).toEqual({ results: [], match: "none" });
  });

  it("answers terms shorter than three characters, and punctuation through LIKE", () => {
    seeded();
    expect(q("10").results.map((h) => h.id)).toEqual(["infra/rete/gateway"]);
    expect(q("al").results[0]?.id).toBe("people/alice");
    expect(q("router 10").results.map((h) => h.id)).toEqual(["infra/rete/gateway"]);
    expect(q("(").results.map((h) => h.id)).toEqual(["infra/rete/gateway"]);
    expect(q("). ?")).toMatchObject({ match: "any_term" });
  });

  it("restricts to a scope prefix at a segment boundary", () => {
    seeded();
    expect(
      q("gateway", { scope: "infra/rete" })
        .results.map((h) => h.id)
        .sort(),
    ).toEqual(["infra/rete/dns", "infra/rete/gateway"]);
    expect(q("gateway", { scope: "infra/ret" }).results).toEqual([]);
    expect(q("alice", { scope: "people/alice" }).results.map((h) => h.id)).toEqual([
      "people/alice",
    ]);
  });

  it("cuts a snippet of about 200 characters around the first match", () => {
    seeded();
    const hit = q("restic").results[0];
    expect(hit?.snippet).toContain("Restic snapshots");
    expect(hit?.snippet.length).toBeLessThanOrEqual(205);
    expect(hit?.snippet.startsWith("…")).toBe(true);
  });

  it("limit counts only visible hits and hidden concepts never appear", () => {
    seeded();
    const vis = { all: false as const, rules: [{ maps: ["people"], journals: [], types: [] }] };
    const r = q("gateway", { visibility: vis, limit: 1 });
    expect(r.results.map((h) => h.id)).toEqual(["people/alice"]);
    expect(q("gateway", { visibility: { all: false, rules: [] } })).toEqual({
      results: [],
      match: "none",
    });
  });

  it("treats FTS syntax in the query as plain text", () => {
    seeded();
    expect(() => q('gate" OR NOT (x*')).not.toThrow();
    expect(() => q("AND OR NEAR")).not.toThrow();
  });
});

describe("upsert, remove, reconcile", () => {
  it("reconcile reports added, changed, removed and unchanged by content", () => {
    seeded();
    const stats = index.reconcile([
      doc("infra/rete/gateway", {
        frontmatter: { type: "service", title: "Network gateway", tags: ["network", "router"] },
        body: "The homelab network gateway is 10.10.0.1 (main router). It forwards DNS to the resolver.",
      }),
      doc("infra/rete/dns", {
        frontmatter: { type: "service", title: "DNS resolver" },
        body: "Now Knot.",
      }),
      doc("people/bob"),
    ]);
    expect(stats).toEqual({ added: 1, changed: 1, removed: 2, unchanged: 1 });
    expect(index.count()).toBe(3);
    expect(q("unbound").results).toEqual([]);
    expect(q("knot").results.map((h) => h.id)).toEqual(["infra/rete/dns"]);
  });

  it("upsert replaces and remove deletes from the full-text index too", () => {
    seeded();
    index.upsert(doc("people/alice", { body: "Alice moved to storage duty." }));
    expect(q("upgrades").results).toEqual([]);
    expect(q('"storage duty"').results.map((h) => h.id)).toEqual(["people/alice"]);
    index.remove("people/alice");
    expect(q('"storage duty"').results).toEqual([]);
    expect(index.count()).toBe(3);
  });
});

describe("folding", () => {
  it("ignores diacritics in words and in title substrings", () => {
    index = openSearchIndex(":memory:");
    index.upsert(
      doc("travel/citta", {
        frontmatter: { type: "note", title: "Città di Castello" },
        body: "Visitammo la città.",
      }),
    );
    const q2 = (query: string) =>
      index.search({ query, limit: 5, visibility: VISIBLE_ALL }).results.map((h) => h.id);
    expect(q2("citta")).toEqual(["travel/citta"]);
    expect(q2("ittà")).toEqual(["travel/citta"]);
    expect(q2("itta")).toEqual(["travel/citta"]);
  });
});
