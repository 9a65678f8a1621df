import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoCachePath } from "../../../src/client/repos/repo-cache.js";
import { RepoIndex, type RepoIndexOptions } from "../../../src/client/repos/repo-index.js";
import { ResolveError } from "../../../src/client/repos/resolve-error.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { makeClone } from "./clones.js";

const newDir = useTempDirs("carto-index-");

/** A temp HOME with ~/src as the search root. */
function home(): { home: string; src: string; opts: (o?: Partial<RepoIndexOptions>) => RepoIndex } {
  const h = newDir();
  const src = path.join(h, "src");
  mkdirSync(src);
  const opts = (o: Partial<RepoIndexOptions> = {}) =>
    new RepoIndex({
      home: h,
      roots: ["~/src"],
      cacheFile: repoCachePath(h),
      configFile: path.join(h, ".cartographer.yaml"),
      ...o,
    });
  return { home: h, src, opts };
}

const cacheOf = (h: string) => JSON.parse(readFileSync(repoCachePath(h), "utf8"));

async function rejection(p: Promise<unknown>): Promise<ResolveError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ResolveError);
  return err as ResolveError;
}

describe("RepoIndex: cache, rescan, ambiguity", () => {
  it("a miss scans and writes the cache in the Go client's shape", async () => {
    const { home: h, src, opts } = home();
    const dir = makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    const hit = await opts().find("tool");
    expect(hit).toEqual({ path: dir, key: "github.com/acme/tool", warnings: [] });
    const cache = cacheOf(h);
    expect(cache.roots).toEqual(["~/src"]);
    expect(cache.repos).toEqual({ "github.com/acme/tool": [dir] });
    expect(cache.complete).toBe(true);
  });

  it("a valid cache entry is answered without scanning", async () => {
    const { src, opts } = home();
    const dir = makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    await opts().find("tool");
    // A second clone of another remote with the same name: a scan would now call it ambiguous.
    makeClone(path.join(src, "other", "tool"), "git@gitlab.com:else/tool.git");
    expect((await opts().find("tool")).path).toBe(dir);
    // --rescan sees it.
    const err = await rejection(opts({ rescan: true }).find("tool"));
    expect(err.reason).toBe("ambiguous");
    expect(err.candidates).toEqual(["github.com/acme/tool", "gitlab.com/else/tool"]);
    expect(err.message).toContain("github.com/acme/tool, gitlab.com/else/tool");
  });

  it("a clone moved since the scan is found again (stale entry → rescan, cache refreshed)", async () => {
    const { home: h, src, opts } = home();
    const dir = makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    await opts().find("tool");
    const moved = path.join(src, "moved-tool");
    renameSync(dir, moved);
    expect((await opts().find("acme/tool")).path).toBe(moved);
    expect(cacheOf(h).repos["github.com/acme/tool"]).toEqual([moved]);
  });

  it("a path that is now another repository is not answered", async () => {
    const { src, opts } = home();
    const dir = makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    await opts().find("tool");
    writeFileSync(path.join(dir, ".git", "config"), '[remote "origin"]\n\turl = git@h.org:x/y\n');
    const err = await rejection(opts().find("tool"));
    expect(err.reason).toBe("not_found");
  });

  it("a clone made after the last scan is found (a miss rescans)", async () => {
    const { src, opts } = home();
    makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    await opts().find("tool");
    const later = makeClone(path.join(src, "site"), "https://github.com/acme/site");
    expect((await opts().find("site")).path).toBe(later);
  });

  it("a cache scanned for other roots is not used", async () => {
    const { home: h, src, opts } = home();
    const dir = makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    mkdirSync(path.dirname(repoCachePath(h)), { recursive: true });
    writeFileSync(
      repoCachePath(h),
      JSON.stringify({ roots: ["~/elsewhere"], repos: { "github.com/acme/tool": ["/nowhere"] } }),
    );
    expect((await opts().find("tool")).path).toBe(dir);
    expect(cacheOf(h).roots).toEqual(["~/src"]);
  });

  it("a damaged cache is replaced by a scan", async () => {
    const { home: h, src, opts } = home();
    const dir = makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    mkdirSync(path.dirname(repoCachePath(h)), { recursive: true });
    writeFileSync(repoCachePath(h), "{not json");
    expect((await opts().find("tool")).path).toBe(dir);
    expect(cacheOf(h).repos["github.com/acme/tool"]).toEqual([dir]);
  });

  it("several clones of one remote: the nearest, with a warning naming the others", async () => {
    const { src, opts } = home();
    const near = makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    const far = makeClone(path.join(src, "x", "tool"), "https://github.com/acme/tool");
    const hit = await opts().find("tool");
    expect(hit.path).toBe(near);
    expect(hit.warnings).toEqual([
      `several clones of github.com/acme/tool: using ${near} (also ${far})`,
    ]);
  });

  it("not found says what was searched and how to fix it; one scan per run", async () => {
    const { src, opts } = home();
    makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    const index = opts();
    const err = await rejection(index.find("missing"));
    expect(err.reason).toBe("not_found");
    expect(err.message).toContain("search_roots ~/src");
    expect(err.message).toContain("1 clones found");
    expect(err.message).toMatch(/add its parent folder to search_roots:.*paths:/);
    const first = index.lastScan;
    await rejection(index.find("also-missing"));
    expect(index.lastScan).toBe(first);
  });

  it("keepCache (a dry run) scans but writes no cache", async () => {
    const { home: h, src, opts } = home();
    const dir = makeClone(path.join(src, "tool"), "git@github.com:acme/tool.git");
    expect((await opts({ keepCache: true }).find("tool")).path).toBe(dir);
    expect(existsSync(repoCachePath(h))).toBe(false);
  });

  it("a missing search root is no error: nothing is found", async () => {
    const { home: h, opts } = home();
    const err = await rejection(opts({ roots: ["~/nope"] }).find("x"));
    expect(err.reason).toBe("not_found");
    expect(existsSync(repoCachePath(h))).toBe(true);
  });
});
