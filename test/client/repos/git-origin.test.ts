import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { originKeyOf, originUrlOf } from "../../../src/client/repos/git-origin.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { commitOnce, makeClone } from "./clones.js";

const newDir = useTempDirs("carto-origin-");

describe("originUrlOf: remote.origin.url as git reads it", () => {
  it.each([
    ['[remote "origin"]\n\turl = git@h.org:o/n.git\n', "git@h.org:o/n.git"],
    ['[Remote "origin"]\n\tURL = a\n\turl = b\n', "b"],
    ["[remote.origin]\n\turl = old-style\n", "old-style"],
    ['[remote "origin"]\n\turl = "quoted value" ; comment\n', "quoted value"],
    ['[remote "origin"]\n\turl = x # comment\n', "x"],
    ['[remote "origin"] url = same-line\n', "same-line"],
    ['[remote "upstream"]\n\turl = not-this\n[remote "origin"]\r\n\turl = this\r\n', "this"],
  ])("%j → %s", (text, url) => {
    expect(originUrlOf(text)).toBe(url);
  });

  it.each([
    ['[remote "upstream"]\n\turl = u\n', "another remote only"],
    ['[remote "Origin"]\n\turl = u\n', "subsection names are case-sensitive"],
    ['[remote "origin"]\n\tpushurl = u\n', "pushurl is not url"],
    ["", "empty"],
  ])("%j has none (%s)", (text) => {
    expect(originUrlOf(text)).toBeUndefined();
  });
});

describe("originKeyOf: a real clone's origin key", () => {
  it("reads the origin git remote add wrote", async () => {
    const dir = makeClone(path.join(newDir(), "r"), "https://github.com/Acme/Tool.git");
    expect(await originKeyOf(dir)).toBe("github.com/Acme/Tool");
  });

  it("a clone without origin, and a folder that is no clone, have none", async () => {
    expect(await originKeyOf(makeClone(path.join(newDir(), "r")))).toBeUndefined();
    expect(await originKeyOf(newDir())).toBeUndefined();
  });

  it("a linked worktree (.git is a file) resolves to the main clone's origin", async () => {
    const root = newDir();
    const main = makeClone(path.join(root, "main"), "git@github.com:acme/tool.git");
    commitOnce(main);
    const wt = path.join(root, "wt");
    execFileSync("git", ["-C", main, "worktree", "add", "-q", wt]);
    expect(await originKeyOf(wt)).toBe("github.com/acme/tool");
  });

  it("a .git file pointing at a relative git dir is followed", async () => {
    const root = newDir();
    mkdirSync(path.join(root, "gitdirs", "x"), { recursive: true });
    writeFileSync(
      path.join(root, "gitdirs", "x", "config"),
      '[remote "origin"]\n\turl = ssh://git@h.org/o/x.git\n',
    );
    mkdirSync(path.join(root, "work"));
    writeFileSync(path.join(root, "work", ".git"), "gitdir: ../gitdirs/x\n");
    expect(await originKeyOf(path.join(root, "work"))).toBe("h.org/o/x");
  });
});
