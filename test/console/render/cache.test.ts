import { describe, expect, it } from "vitest";
import { RenderCache } from "../../../src/console/render/cache.js";
import { linkForViewer } from "../../../src/console/render/viewer-links.js";

const PLACE = { kb: "kb", fromPath: "data/p/page.md" };
const TEXT = `see [[p/a]] and [[p/b]]\n\n${"filler text. ".repeat(100)}`;

describe("RenderCache", () => {
  it("keeps one rendering for every viewer; each view links it for its own visible set", async () => {
    const cache = new RenderCache(1_000_000, 0);
    const first = await cache.obtain(TEXT, "h1", PLACE);
    const again = await cache.obtain(TEXT, "h1", PLACE);
    expect(again).toBe(first);
    expect(cache.counters).toMatchObject({ viewRenders: 1, hits: 1 });
    const wide = linkForViewer(again, new Set(["p/a", "p/b"])) as string;
    const narrow = linkForViewer(again, new Set(["p/a"])) as string;
    expect(wide).toContain('href="/console/kb/c/p/b"');
    expect(narrow).not.toContain('href="/console/kb/c/p/b"');
    expect(narrow).toContain('<span class="missing-link">p/b</span>');
  });

  it("bodies under the threshold are rendered on every view and never kept", async () => {
    const cache = new RenderCache(1_000_000, 10_000);
    await cache.obtain(TEXT, "h1", PLACE);
    await cache.obtain(TEXT, "h1", PLACE);
    expect(cache.counters).toMatchObject({ viewRenders: 2, hits: 0 });
    expect(cache.bytes).toBe(0);
  });

  it("a new content hash renders again; the cache stays under its byte bound, oldest out first", async () => {
    const cache = new RenderCache(12_000, 0);
    const a = await cache.obtain(TEXT, "h1", PLACE);
    const b = await cache.obtain(`${TEXT} changed`, "h2", PLACE);
    expect(b.html).toContain("changed");
    expect(a.html).not.toContain("changed");
    for (let i = 0; i < 20; i++) await cache.obtain(`${TEXT} ${i}`, `h${i + 3}`, PLACE);
    expect(cache.bytes).toBeLessThanOrEqual(12_000);
    expect(cache.bytes).toBeGreaterThan(0);
    expect(cache.has(PLACE, "h22")).toBe(true);
    expect(cache.has(PLACE, "h1")).toBe(false);
    expect(cache.fits(100_000)).toBe(false);
  });

  it("a file's newer content replaces its older rendering instead of adding to it", async () => {
    const cache = new RenderCache(1_000_000, 0);
    await cache.obtain(TEXT, "v1", PLACE);
    const one = cache.bytes;
    await cache.obtain(`${TEXT}!`, "v2", PLACE);
    expect(cache.has(PLACE, "v1")).toBe(false);
    expect(cache.has(PLACE, "v2")).toBe(true);
    expect(cache.bytes).toBeLessThan(one * 1.1);
    await cache.obtain(TEXT, "v1", { ...PLACE, fromPath: "data/p/other.md" });
    expect(cache.has(PLACE, "v2")).toBe(true);
  });

  it("a text of another length under the same hash (an over-limit file's opening) is not served the kept one", async () => {
    const cache = new RenderCache(1_000_000, 0);
    await cache.obtain(TEXT, "h1", PLACE);
    const opening = await cache.obtain(TEXT.slice(0, 20), "h1", PLACE);
    expect(opening.html).not.toContain("filler");
    expect(cache.counters.viewRenders).toBe(2);
  });

  it("a view of a body whose background render is under way waits for it instead of rendering", async () => {
    const cache = new RenderCache(1_000_000, 0);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const prepared = cache.prepare(PLACE, "h1", async () => {
      await gate;
      return { text: TEXT, hash: "h1" };
    });
    const view = cache.obtain(TEXT, "h1", PLACE);
    release();
    expect(await prepared).toBe("rendered");
    const r = await view;
    expect(r.html).toContain("filler");
    expect(cache.counters).toEqual({ viewRenders: 0, backgroundRenders: 1, hits: 1, waits: 1 });
    expect(await cache.prepare(PLACE, "h1", async () => null)).toBe("kept");
  });

  it("a view waiting for a background render whose read fails renders the body itself", async () => {
    const cache = new RenderCache(1_000_000, 0);
    const prepared = cache.prepare(PLACE, "h1", async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error("the file vanished");
    });
    const view = cache.obtain(TEXT, "h1", PLACE);
    await expect(prepared).rejects.toThrow("the file vanished");
    expect((await view).html).toContain("filler");
    expect(cache.counters).toMatchObject({ waits: 1, viewRenders: 1, hits: 0 });
  });

  it("a background render keeps what it read under the hash it read; nothing when the body is small", async () => {
    const cache = new RenderCache(1_000_000, 100);
    expect(await cache.prepare(PLACE, "old", async () => ({ text: TEXT, hash: "new" }))).toBe(
      "rendered",
    );
    expect(cache.has(PLACE, "new")).toBe(true);
    expect(cache.has(PLACE, "old")).toBe(false);
    expect(await cache.prepare(PLACE, "s", async () => ({ text: "small", hash: "s" }))).toBe(
      "skipped",
    );
    expect(cache.has(PLACE, "s")).toBe(false);
  });
});
