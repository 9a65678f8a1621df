/**
 * `cartographer resolve` through the built binary, with a temp HOME of real clones (git init +
 * git remote add): the exit codes (0 path, 1 unresolved, 2 usage), stdout/stderr/--json, the
 * cache it writes under ~/.config/cartographer and --rescan.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeClone } from "../client/repos/clones.js";
import { cleanEnv, runBin, tempDir } from "./helpers.js";

let t: ReturnType<typeof tempDir>;
let home: string;
let tool: string;

const run = (...args: string[]) =>
  runBin(["resolve", ...args], { cwd: home, env: cleanEnv({ HOME: home }) });

beforeAll(() => {
  t = tempDir("carto-resolve-");
  home = path.join(t.dir, "home");
  tool = makeClone(path.join(home, "Documents", "work", "tool"), "git@github.com:acme/tool.git");
  makeClone(path.join(home, "Documents", "site"), "https://github.com/acme/site.git");
  makeClone(path.join(home, "Documents", "forks", "site"), "https://gitlab.com/fork/site");
  makeClone(path.join(home, "src", "elsewhere"), "git@github.com:acme/elsewhere.git");
});

afterAll(() => t?.cleanup());

describe("cartographer resolve (built binary)", () => {
  it("with no yaml at all, searches ~/Documents: prints the absolute path, exit 0", async () => {
    const res = await run("repo:tool");
    expect(res).toMatchObject({ code: 0, stdout: `${tool}\n`, stderr: "" });
    const cache = JSON.parse(
      readFileSync(path.join(home, ".config", "cartographer", "repos.json"), "utf8"),
    );
    expect(cache.roots).toEqual(["~/Documents"]);
    expect(cache.repos["github.com/acme/tool"]).toEqual([tool]);
  });

  it("--json prints one object with the path and the key; the placeholder form is accepted", async () => {
    const res = await run("{{repo:acme/tool}}", "--json");
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      ref: "repo:acme/tool",
      path: tool,
      key: "github.com/acme/tool",
      warnings: [],
    });
  });

  it("an ambiguous short name: exit 1 naming both keys and the full form to use", async () => {
    const res = await run("repo:site");
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toContain("github.com/acme/site, gitlab.com/fork/site");
    expect(res.stderr).toContain("cartographer resolve repo:github.com/acme/site");
    const js = await run("repo:site", "--json");
    expect(js.code).toBe(1);
    expect(JSON.parse(js.stdout).error).toMatchObject({
      reason: "ambiguous",
      candidates: ["github.com/acme/site", "gitlab.com/fork/site"],
    });
    expect((await run("repo:gitlab.com/fork/site")).code).toBe(0);
  });

  it("a clone outside the search roots: exit 1 saying what was searched and how to fix it", async () => {
    const res = await run("repo:elsewhere");
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toContain("search_roots ~/Documents");
    expect(res.stderr).toContain("search_roots:");
    expect(res.stderr).toContain("paths:");
  });

  it("search_roots and paths from the yaml; a path: name that is not mapped is exit 1", async () => {
    writeFileSync(
      path.join(home, ".cartographer.yaml"),
      "search_roots: [~/Documents, ~/src]\npaths:\n  assets: ~/assets\n",
    );
    mkdirSync(path.join(home, "assets"), { recursive: true });
    expect(await run("repo:elsewhere")).toMatchObject({
      code: 0,
      stdout: `${path.join(home, "src", "elsewhere")}\n`,
    });
    expect(await run("path:assets")).toMatchObject({
      code: 0,
      stdout: `${path.join(home, "assets")}\n`,
    });
    const missing = await run("path:nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no entry "nope" under paths:');
  });

  it("a Go client's yaml (not yet converted) still gives its search_roots, with a warning", async () => {
    writeFileSync(
      path.join(home, ".cartographer.yaml"),
      "agents: [claude]\ntrust: true\nsearch_roots: [~/src]\n",
    );
    const res = await run("repo:elsewhere");
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`${path.join(home, "src", "elsewhere")}\n`);
    expect(res.stderr).toContain(
      "in the Go client's shape; cartographer upgrade-repair converts it",
    );
    writeFileSync(path.join(home, ".cartographer.yaml"), "search_roots: [~/Documents, ~/src]\n");
  });

  it("a clone made after the cache was written is found; --rescan rescans", async () => {
    const later = makeClone(path.join(home, "src", "later"), "git@github.com:acme/later.git");
    expect(await run("repo:later")).toMatchObject({ code: 0, stdout: `${later}\n` });
    const again = await run("repo:later", "--rescan");
    expect(again).toMatchObject({ code: 0, stdout: `${later}\n` });
  });

  it("usage errors are exit 2: no kind, an unknown kind, an empty key; a bad yaml too", async () => {
    for (const arg of ["tool", "url:tool", "repo:", "{{repo:}}"]) {
      const res = await run(arg);
      expect(res.code, arg).toBe(2);
      expect(res.stderr, arg).toContain("expected repo:<key> or path:<name>");
    }
    expect((await runBin(["resolve"], { cwd: home, env: cleanEnv({ HOME: home }) })).code).toBe(2);
    writeFileSync(path.join(home, ".cartographer.yaml"), "search_roots: [relative/dir]\n");
    const bad = await run("repo:tool");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("search_roots[0]");
  });
});
