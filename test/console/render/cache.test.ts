import { describe, expect, it } from "vitest";
import { RenderCache } from "../../../src/console/render/cache.js";

const PLACE = { kb: "kb", fromPath: "data/p/page.md" };
const TEXT = `see [[p/a]] and [[p/b]]\n\n${"filler text. ".repeat(100)}`;

describe("RenderCache", () => {
  it("a reader who sees fewer linked concepts never gets a rendering made for one who sees more", () => {
    const cache = new RenderCache(1_000_000, 0);
    const wide = cache.render(TEXT, "h1", PLACE, () => new Set(["p/a", "p/b"]));
    const narrow = cache.render(TEXT, "h1", PLACE, () => new Set(["p/a"]));
    expect(wide.html.value).toContain('href="/console/kb/c/p/b"');
    expect(narrow.html.value).not.toContain('href="/console/kb/c/p/b"');
    expect(narrow.html.value).toContain('<span class="missing-link">p/b</span>');
    expect(cache.render(TEXT, "h1", PLACE, () => new Set(["p/a", "p/b"])).html).toBe(wide.html);
  });

  it("asks which targets are visible on every view, cached or not", () => {
    const cache = new RenderCache(1_000_000, 0);
    const asked: string[][] = [];
    const visibleOf = (ids: readonly string[]) => {
      asked.push([...ids]);
      return new Set<string>();
    };
    cache.render(TEXT, "h1", PLACE, visibleOf);
    cache.render(TEXT, "h1", PLACE, visibleOf);
    expect(asked).toEqual([
      ["p/a", "p/b"],
      ["p/a", "p/b"],
    ]);
  });

  it("a new content hash renders again; the cache stays under its byte bound", () => {
    const cache = new RenderCache(3_000, 0);
    const a = cache.render(TEXT, "h1", PLACE, () => new Set());
    const b = cache.render(`${TEXT} changed`, "h2", PLACE, () => new Set());
    expect(b.html.value).toContain("changed");
    expect(a.html.value).not.toContain("changed");
    for (let i = 0; i < 20; i++) cache.render(`${TEXT} ${i}`, `h${i + 3}`, PLACE, () => new Set());
    expect(cache.bytes).toBeLessThanOrEqual(3_000);
  });
});
