/**
 * index_rebuild (docs/decisions.md "`index_rebuild` is a whole-KB write"): a whole-KB write (a
 * read-only token is refused: the authz matrix row), a full rebuild from the files on disk, and
 * rate-limited per KB.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isKbError } from "../../../src/common/errors.js";
import { indexTools } from "../../../src/tools/families/index-tools.js";
import { directHandlerContext, makeTempKb, type TempKb, tool } from "../../support/tool-kb.js";

const spec = tool(indexTools, "index_rebuild");
const kbs: TempKb[] = [];
afterEach(async () => {
  for (const kb of kbs.splice(0)) await kb.cleanup();
});

async function kb(): Promise<TempKb> {
  const made = await makeTempKb({
    files: { "data/notes/a.md": "---\ntype: note\ntitle: A\n---\nalpha\n" },
  });
  kbs.push(made);
  return made;
}

/** Runs the handler at `at` (the surface runs it under the KB write lock, one at a time). */
function rebuildAt(k: TempKb, at: number): Promise<unknown> {
  const ctx = { ...directHandlerContext(k.runtime), now: () => new Date(at) };
  return k.runtime.store.withLock(async () => spec.handler({}, ctx));
}

describe("index_rebuild", () => {
  it("is a whole-KB write, not read-only (so a read-only token is refused)", () => {
    expect(spec.readOnly).toBe(false);
    expect(spec.resource).toBe("whole");
  });

  it("rebuilds from disk: an index entry with no file behind it is gone afterwards", async () => {
    const k = await kb();
    const real = await k.runtime.store.readConcept("notes/a");
    k.runtime.index.upsert({ ...real, id: "notes/ghost", path: "data/notes/ghost.md" });
    expect(k.runtime.index.count()).toBeGreaterThan(1);
    const stats = (await rebuildAt(k, 0)) as Record<string, number>;
    expect(stats.removed).toBe(1);
    const ghost = k.runtime.index.search({ query: "alpha", limit: 10, visibility: { all: true } });
    expect(ghost.results.map((h) => h.id)).toEqual(["notes/a"]);
  });

  it("runs at most once per 30 s per KB: rate_limited with the retry time, then allowed again", async () => {
    const k = await kb();
    const other = await kb();
    const t0 = Date.parse("2026-12-01T10:00:00.000Z");
    await rebuildAt(k, t0);
    const err = await rebuildAt(k, t0 + 1_000).catch((e: unknown) => e);
    expect(isKbError(err, "rate_limited")).toBe(true);
    expect((err as Error).message).toBe(
      "index_rebuild runs at most once every 30 s per KB: retry in 29 s (at 2026-12-01T10:00:30.000Z)",
    );
    expect((err as { details?: unknown }).details).toEqual({
      retry_after_ms: 29_000,
      retry_at: "2026-12-01T10:00:30.000Z",
    });
    // Another KB has its own budget.
    await rebuildAt(other, t0 + 1_000);
    await expect(rebuildAt(k, t0 + 29_999)).rejects.toThrow(/retry in 1 s/);
    await rebuildAt(k, t0 + 30_000);
  });
});
