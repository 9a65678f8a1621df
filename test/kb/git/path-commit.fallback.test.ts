/**
 * Whatever git commit would do differently from plain objects goes through `git commit <paths>`
 * (docs/decisions.md "A write commits through objects written in process"), each case on real
 * git: the committer says why (`lastFallback`) and the commit is git commit's own — signing
 * asked for, another object format, line-ending conversion, attributes that change what git
 * stores, a message cleanup mode, a merge in progress, dates from the environment, an identity
 * git rewrites, a file where a folder was, a symlink; a configuration change is seen by the next
 * write.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PathCommitter } from "../../../src/kb/git/path-commit.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { AUTHOR, fails } from "../helpers.js";

const tmp = useTempDirs("carto-commit-fallback-");

/** A repository with one commit; `init` adds options to git init. */
function repo(init: string[] = []): string {
  const root = tmp();
  git(root, ["init", "-q", "-b", "main", ...init]);
  mkdirSync(join(root, "data"));
  writeFileSync(join(root, "data", "index.md"), "# Index\n");
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", "start"]);
  return root;
}

async function commitFile(
  c: PathCommitter,
  root: string,
  path: string,
  text: string,
  message = `write ${path}`,
  who = AUTHOR,
): Promise<string | null> {
  writeFileSync(join(root, path), text);
  return c.commit([path], message, who);
}

const head = (root: string, format: string) => git(root, ["log", "-1", `--format=${format}`]);

describe("PathCommitter falls back to git commit <paths>", () => {
  it("commit.gpgSign set, then unset: the next write sees each change", async () => {
    const root = repo();
    const c = new PathCommitter(root, process.env);
    await commitFile(c, root, "data/a.md", "a\n");
    expect([c.counts, c.lastFallback]).toEqual([{ plumbing: 1, partial: 0 }, null]);
    git(root, ["config", "commit.gpgSign", "true"]);
    await commitFile(c, root, "data/b.md", "b\n");
    expect([c.counts, c.lastFallback]).toEqual([{ plumbing: 1, partial: 1 }, "commit.gpgSign"]);
    git(root, ["config", "--unset", "commit.gpgSign"]);
    await commitFile(c, root, "data/c.md", "c\n");
    expect([c.counts, c.lastFallback]).toEqual([{ plumbing: 2, partial: 1 }, null]);
  });

  it("a sha256 repository", async () => {
    const root = repo(["--object-format=sha256"]);
    const c = new PathCommitter(root, process.env);
    const sha = await commitFile(c, root, "data/a.md", "a\n");
    expect(c.lastFallback).toBe("extensions.objectformat");
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    expect(git(root, ["fsck", "--strict", "--no-dangling"])).toBe("");
  });

  it("core.autocrlf, and commit.cleanup (which strips a # line git commit's way)", async () => {
    const root = repo();
    const c = new PathCommitter(root, process.env);
    git(root, ["config", "core.autocrlf", "input"]);
    await commitFile(c, root, "data/a.md", "a\r\n");
    expect(c.lastFallback).toBe("core.autocrlf");
    expect(git(root, ["cat-file", "-p", "HEAD:data/a.md"])).toBe("a"); // stored as LF
    git(root, ["config", "--unset", "core.autocrlf"]);
    git(root, ["config", "commit.cleanup", "strip"]);
    await commitFile(c, root, "data/b.md", "b\n", "subject\n# stripped by git");
    expect(c.lastFallback).toBe("commit.cleanup");
    expect(head(root, "%B")).toBe("subject");
  });

  it("a .gitattributes on the path: git add's filters decide what is stored", async () => {
    const root = repo();
    const c = new PathCommitter(root, process.env);
    writeFileSync(join(root, "data", ".gitattributes"), "*.md ident\n");
    git(root, ["add", "data/.gitattributes"]);
    git(root, ["commit", "-q", "-m", "attributes"]);
    await commitFile(c, root, "data/a.md", "id: $Id: anything $\n");
    expect(c.lastFallback).toBe(".gitattributes");
    expect(git(root, ["cat-file", "-p", "HEAD:data/a.md"])).toBe("id: $Id$");
    expect(git(root, ["status", "--porcelain"])).toBe("");
  });

  it("a merge in progress: git commit refuses a partial commit, and so does the write", async () => {
    const root = repo();
    const c = new PathCommitter(root, process.env);
    writeFileSync(join(root, ".git", "MERGE_HEAD"), `${git(root, ["rev-parse", "HEAD"])}\n`);
    await fails(commitFile(c, root, "data/a.md", "a\n"), "git_failed", "merge");
    expect(c.lastFallback).toBe(".git/MERGE_HEAD");
    expect(head(root, "%s")).toBe("start");
  });

  it("GIT_COMMITTER_DATE in the environment, an identity git rewrites", async () => {
    const root = repo();
    const dated = new PathCommitter(root, {
      ...process.env,
      GIT_COMMITTER_DATE: "@1700000000 +0000",
    });
    await commitFile(dated, root, "data/a.md", "a\n");
    expect(dated.lastFallback).toBe("GIT_COMMITTER_DATE");
    const c = new PathCommitter(root, process.env);
    await commitFile(c, root, "data/b.md", "b\n", "b", { name: " Dr. Who.", email: "who@x" });
    expect(c.lastFallback).toBe("an identity git rewrites");
    expect(head(root, "%an")).toBe("Dr. Who"); // git trimmed both ends
  });

  it("a file where a folder was, and a symlink", async () => {
    const root = repo();
    const c = new PathCommitter(root, process.env);
    mkdirSync(join(root, "data", "x"));
    await commitFile(c, root, "data/x/y.md", "y\n");
    expect(c.lastFallback).toBeNull();
    rmSync(join(root, "data", "x"), { recursive: true });
    await commitFile(c, root, "data/x", "now a file\n");
    expect(c.lastFallback).toBe("a tree git builds differently");
    expect(git(root, ["ls-tree", "-r", "--name-only", "HEAD", "data/x"])).toBe("data/x");
    symlinkSync("index.md", join(root, "data", "link.md"));
    await c.commit(["data/link.md"], "link", AUTHOR);
    expect(c.lastFallback).toBe("data/link.md is not a regular file");
    expect(git(root, ["ls-tree", "HEAD", "data/link.md"])).toMatch(/^120000 blob /);
    expect(git(root, ["status", "--porcelain"])).toBe("");
  });

  it("no commit yet", async () => {
    const root = tmp();
    git(root, ["init", "-q", "-b", "main"]);
    writeFileSync(join(root, "a.md"), "a\n");
    const c = new PathCommitter(root, process.env);
    expect(await c.commit(["a.md"], "first", AUTHOR)).toMatch(/^[0-9a-f]{40}$/);
    expect(c.lastFallback).toBe("no commit yet");
  });
});
