/**
 * The audit page's calls per viewer: a whole-KB reader sees every call on the KB, a narrow viewer
 * only calls naming concepts it sees (never a call on a hidden one, nor one it cannot judge), and
 * attempts without completion are found.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditPage, incomplete, namedIds } from "../../../src/console/data/audit-events.js";
import { auditWindow, CallFolder } from "../../../src/console/data/audit-window.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { type GovKb, govKb, HIDDEN_WORDS, NARROW } from "./gov-kb.js";

let kb: GovKb;
beforeAll(async () => {
  kb = await govKb();
  await kb.call("concept_read", { id: "alpha/public" }, NARROW);
}, 60_000);
afterAll(async () => kb?.cleanup());

describe("auditPage", () => {
  it("shows a whole-KB reader every call, newest first", async () => {
    const window = await auditWindow(kb.auditLog);
    const page = await auditPage(window, kb.scopeOf(LOCAL_ADMIN), { kb: "main", size: 50 });
    expect(page.calls.map((c) => c.tool).slice(0, 3)).toEqual([
      "concept_read",
      "concept_batch",
      "concept_write",
    ]);
    expect(page.calls.some((c) => JSON.stringify(c).includes("beta/secret-x"))).toBe(true);
  });

  it("shows a narrow viewer only calls on concepts it sees", async () => {
    const window = await auditWindow(kb.auditLog);
    const page = await auditPage(window, kb.scopeOf(NARROW), { kb: "main", size: 50 });
    expect(page.calls.map((c) => [c.tool, c.resources])).toEqual([
      ["concept_read", { id: "alpha/public" }],
      ["concept_write", { id: "alpha/public" }],
    ]);
    for (const word of HIDDEN_WORDS) expect(JSON.stringify(page)).not.toContain(word);
  });

  it("pages with `before` and filters one request", async () => {
    const window = await auditWindow(kb.auditLog);
    const admin = kb.scopeOf(LOCAL_ADMIN);
    const first = await auditPage(window, admin, { kb: "main", size: 2 });
    const second = await auditPage(window, admin, { kb: "main", size: 2, before: first.next ?? 0 });
    expect(second.calls[0]?.seq).toBeLessThan(first.calls[1]?.seq ?? 0);
    const id = first.calls[1]?.request_id as string;
    const one = await auditPage(window, admin, { kb: "main", size: 50, request: id });
    expect(one.calls.map((c) => c.request_id)).toEqual([id]);
    expect(await auditPage(window, admin, { kb: "other", size: 50 })).toEqual({
      calls: [],
      next: null,
    });
  });

  it("judges resources fail-closed", () => {
    expect(namedIds({ resources: { id: "a/b", strategy: "ours" }, read_only: false })).toEqual([
      "a/b",
    ]);
    expect(
      namedIds({ resources: { from: "a/b", to: "a/c", rewrite_links: true }, read_only: false }),
    ).toEqual(["a/b", "a/c"]);
    expect(namedIds({ resources: { path: "beta/pic.bin" }, read_only: false })).toBeNull();
    expect(namedIds({ resources: { name: "beta" }, read_only: false })).toBeNull();
    expect(namedIds({ resources: {}, read_only: false })).toBeNull();
    expect(namedIds({ resources: {}, read_only: true })).toEqual([]);
    expect(namedIds({ resources: { id: 3 }, read_only: true })).toBeNull();
  });

  it("finds attempts without a completion", () => {
    const f = new CallFolder();
    f.add(JSON.stringify({ phase: "attempt", request_id: "open", kb: "k", resources: {} }));
    f.add(JSON.stringify({ phase: "attempt", request_id: "done", kb: "k", resources: {} }));
    f.add(JSON.stringify({ phase: "completion", request_id: "done", kb: "k", outcome: "success" }));
    expect(f.calls.filter(incomplete).map((c) => c.request_id)).toEqual(["open"]);
  });
});
