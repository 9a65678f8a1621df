import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SCAN_LIMITS, scanRoots } from "../../../src/client/repos/scan.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { makeClone } from "./clones.js";

const newDir = useTempDirs("carto-scan-");
const keys = (r: { repos: { key: string }[] }) => r.repos.map((x) => x.key).sort();

describe("scanRoots: a bounded walk for clones", () => {
  it("finds clones down to depth 4 and not at depth 5", async () => {
    const root = newDir();
    makeClone(path.join(root, "a", "b", "c", "d4"), "git@h.org:o/depth4.git");
    makeClone(path.join(root, "a", "b", "c", "d", "d5"), "git@h.org:o/depth5.git");
    makeClone(path.join(root, "top"), "git@h.org:o/top.git");
    const found = await scanRoots([root]);
    expect(keys(found)).toEqual(["h.org/o/depth4", "h.org/o/top"]);
    expect(SCAN_LIMITS.maxDepth).toBe(4);
  });

  it("skips hidden folders, node_modules and vendor; a root that is a clone counts", async () => {
    const root = newDir();
    makeClone(path.join(root, ".hidden", "r"), "git@h.org:o/hidden.git");
    makeClone(path.join(root, "node_modules", "r"), "git@h.org:o/nm.git");
    makeClone(path.join(root, "vendor", "r"), "git@h.org:o/vendor.git");
    makeClone(path.join(root, "ok"), "git@h.org:o/ok.git");
    expect(keys(await scanRoots([root]))).toEqual(["h.org/o/ok"]);
    const solo = makeClone(newDir(), "git@h.org:o/solo.git");
    expect(keys(await scanRoots([solo]))).toEqual(["h.org/o/solo"]);
  });

  it("never descends into a clone (a nested clone is not a key of its own)", async () => {
    const root = newDir();
    const outer = makeClone(path.join(root, "outer"), "git@h.org:o/outer.git");
    makeClone(path.join(outer, "inner"), "git@h.org:o/inner.git");
    expect(keys(await scanRoots([root]))).toEqual(["h.org/o/outer"]);
  });

  it("follows no symlink below a root, but a root that is a symlink is walked", async () => {
    const elsewhere = newDir();
    makeClone(path.join(elsewhere, "r"), "git@h.org:o/linked.git");
    const root = newDir();
    symlinkSync(elsewhere, path.join(root, "link"));
    expect(keys(await scanRoots([root]))).toEqual([]);
    const linkRoot = path.join(newDir(), "root-link");
    symlinkSync(elsewhere, linkRoot);
    expect(keys(await scanRoots([linkRoot]))).toEqual(["h.org/o/linked"]);
  });

  it("walks roots in order, breadth first: the nearest clone of a key comes first", async () => {
    const first = newDir();
    const second = newDir();
    const deep = makeClone(path.join(first, "x", "y", "same"), "git@h.org:o/same.git");
    const shallow = makeClone(path.join(first, "same"), "https://h.org/o/same");
    const other = makeClone(path.join(second, "same"), "git@h.org:o/same.git");
    const found = await scanRoots([first, second]);
    expect(found.repos.map((r) => r.dir)).toEqual([shallow, deep, other]);
  });

  it("stops at the folder cap and at the time budget, saying so", async () => {
    const root = newDir();
    for (let i = 0; i < 30; i++) mkdirSync(path.join(root, `d${i}`, "sub"), { recursive: true });
    const capped = await scanRoots([root], { maxDepth: 4, maxDirs: 10, budgetMs: 60_000 });
    expect(capped.truncated).toBe("dirs");
    expect(capped.visited).toBe(10);
    // The clock passes the deadline after the root and the first batch of level 1 (16 folders).
    let calls = 0;
    const clock = () => (calls++ < 3 ? 0 : 10_000);
    const timed = await scanRoots([root], { maxDepth: 4, maxDirs: 1000, budgetMs: 1000 }, clock);
    expect(timed.truncated).toBe("time");
    expect(timed.visited).toBe(17);
    const whole = await scanRoots([root]);
    expect(whole.truncated).toBeUndefined();
    expect(whole.visited).toBe(61);
  });

  it("a missing root is skipped; an unreadable folder is counted and skipped", async () => {
    const root = newDir();
    makeClone(path.join(root, "r"), "git@h.org:o/r.git");
    const found = await scanRoots([path.join(root, "missing"), root]);
    expect(keys(found)).toEqual(["h.org/o/r"]);
    if (process.getuid?.() === 0) return; // root reads every folder regardless of its mode
    const locked = path.join(root, "locked");
    mkdirSync(locked, { mode: 0o000 });
    const again = await scanRoots([root]);
    expect(again.unreadable).toBe(1);
    expect(keys(again)).toEqual(["h.org/o/r"]);
  });
});
