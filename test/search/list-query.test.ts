import { afterEach, describe, expect, it } from "vitest";
import { isKbError } from "../../src/common/errors.js";
import { VISIBLE_ALL, type Visibility } from "../../src/kb/core/types.js";
import type { ListQuery } from "../../src/search/api.js";
import { openSearchIndex, type SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { doc } from "./docs.js";

let index: SqliteSearchIndex;
afterEach(() => index?.close());

function seeded(): SqliteSearchIndex {
  index = openSearchIndex(":memory:");
  index.reconcile([
    doc("infra/a", {
      frontmatter: {
        type: "service",
        title: "A",
        tags: ["net", "core"],
        timestamp: "2024-01-05T10:00:00Z",
      },
    }),
    doc("infra/b", {
      frontmatter: {
        type: "runbook",
        title: "B",
        tags: ["storage"],
        timestamp: "2024-02-01T00:00:00Z",
      },
    }),
    doc("infra/c", {
      frontmatter: { type: "service", title: "C", status: "draft", priority: 3, done: false },
    }),
    doc("diary/d", {
      frontmatter: { type: "entry", title: "D", timestamp: "2024-03-10" },
      map: null,
      journal: "diary",
    }),
  ]);
  return index;
}

const ids = (query: Partial<ListQuery>) =>
  index.list({ limit: 100, visibility: VISIBLE_ALL, ...query }).items.map((i) => i.id);

describe("list", () => {
  it("filters on columns and on frontmatter, list fields matching any element", () => {
    seeded();
    expect(ids({ where: ["type=service"] })).toEqual(["infra/a", "infra/c"]);
    expect(ids({ where: ["journal=diary"] })).toEqual(["diary/d"]);
    expect(ids({ where: ["map!=infra"] })).toEqual(["diary/d"]);
    expect(ids({ where: ["tags=core"] })).toEqual(["infra/a"]);
    expect(ids({ where: ["tags!=core"] })).toEqual(["diary/d", "infra/b", "infra/c"]);
    expect(ids({ where: ["priority=3", "done=false"] })).toEqual(["infra/c"]);
    expect(ids({ where: ["type=service", "status != draft"] })).toEqual(["infra/a"]);
  });

  it("bounds on timestamp are inclusive and exclude concepts without one", () => {
    seeded();
    expect(ids({ since: "2024-01-05T10:00:00Z" })).toEqual(["diary/d", "infra/a", "infra/b"]);
    expect(ids({ since: "2024-01-06", until: "2024-03-10" })).toEqual(["diary/d", "infra/b"]);
    expect(ids({ until: "2024-01-05" })).toEqual(["infra/a"]);
  });

  it("counts total and truncated over visible matches only", () => {
    seeded();
    const vis: Visibility = {
      all: false,
      rules: [{ maps: ["infra"], journals: [], types: ["service"] }],
    };
    expect(index.list({ limit: 1, visibility: vis })).toEqual({
      items: [
        {
          id: "infra/a",
          title: "A",
          type: "service",
          map: "infra",
          journal: null,
          hash: expect.any(String),
        },
      ],
      total: 2,
      truncated: true,
    });
    expect(index.list({ limit: 5, visibility: vis, prefix: "infra" })).toMatchObject({
      total: 2,
      truncated: false,
    });
    expect(index.list({ limit: 5, visibility: VISIBLE_ALL, prefix: "diary/" }).total).toBe(1);
  });

  it("rejects a malformed where clause naming it and the accepted forms", () => {
    seeded();
    for (const bad of ["type", "=x", "a b=c", "type>3"]) {
      try {
        index.list({ limit: 5, visibility: VISIBLE_ALL, where: [bad] });
        expect.unreachable(`accepted ${bad}`);
      } catch (err) {
        expect(isKbError(err, "invalid_argument")).toBe(true);
        expect((err as Error).message).toContain(JSON.stringify(bad));
        expect((err as Error).message).toContain("key!=value");
      }
    }
    expect(() => index.list({ limit: 5, visibility: VISIBLE_ALL, since: "yesterday" })).toThrow(
      /since/,
    );
  });
});

describe("timestamp bounds", () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it("a time without a zone is UTC, whatever the server's time zone", () => {
    process.env.TZ = "America/New_York";
    index = openSearchIndex(":memory:");
    index.reconcile([
      doc("n/local", { frontmatter: { type: "note", timestamp: "2024-05-01T10:00:00" } }),
      doc("n/offset", { frontmatter: { type: "note", timestamp: "2024-05-01T12:00:00+02:00" } }),
    ]);
    expect(ids({ since: "2024-05-01T10:00:00Z", until: "2024-05-01T10:00:00Z" })).toEqual([
      "n/local",
      "n/offset",
    ]);
    expect(ids({ since: "2024-05-01T10:00", until: "2024-05-01T10:00" })).toEqual([
      "n/local",
      "n/offset",
    ]);
    expect(ids({ until: "2024-05-01" })).toEqual(["n/local", "n/offset"]);
    expect(ids({ since: "2024-05-02" })).toEqual([]);
  });

  it("a bound that is not an ISO-8601 date or time is invalid_argument naming it", () => {
    seeded();
    for (const bad of ["5", "May 3", "2024-02-30", "yesterday", "2024-13-01", "01/05/2024"]) {
      try {
        index.list({ limit: 5, visibility: VISIBLE_ALL, since: bad });
        expect.unreachable(`accepted ${bad}`);
      } catch (err) {
        expect(isKbError(err, "invalid_argument"), bad).toBe(true);
        expect((err as Error).message).toContain(JSON.stringify(bad));
      }
    }
  });

  it("a frontmatter timestamp that is not ISO-8601 is outside every bound", () => {
    index = openSearchIndex(":memory:");
    index.reconcile([
      doc("n/prose", { frontmatter: { type: "note", timestamp: "May 3" } }),
      doc("n/iso", { frontmatter: { type: "note", timestamp: "2001-05-03" } }),
    ]);
    expect(ids({ since: "2001-01-01", until: "2001-12-31" })).toEqual(["n/iso"]);
  });
});
