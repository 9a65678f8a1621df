/**
 * The store's one commit per write through objects written in process (path-commit.ts,
 * docs/decisions.md "A write commits through objects written in process"), on real git: the commit is the one
 * `git commit <paths>` made (author, committer, message, parent, tree), nothing else staged goes
 * in, a HEAD moved by someone else is built on (never reverted), and the git processes a write
 * runs are counted through a logging `git` first on PATH.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { KbStore } from "../../../src/kb/core/api.js";
import type { PathCommitter } from "../../../src/kb/git/path-commit.js";
import { openKb } from "../../../src/kb/store/store.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { AUTHOR, freshKb, gitIn, run, settingsFor, type TempKb } from "../helpers.js";

const tmp = useTempDirs("carto-path-commit-");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const note = (title: string) => ({ type: "note", title });

async function kb(): Promise<TempKb> {
  const made = await freshKb();
  cleanups.push(made.cleanup);
  return made;
}

const write = (store: KbStore, id: string, body: string) =>
  store
    .planConceptWrite({ id, frontmatter: note(id), body, mode: "upsert" })
    .then((p) => run(store, p, "concept_write"));

const committer = (store: KbStore) => (store as unknown as { committer: PathCommitter }).committer;
const show = (root: string, rev: string, format: string) =>
  gitIn(root, ["show", "-s", `--format=${format}`, rev]).trim();

describe("PathCommitter", () => {
  it("makes the commit git commit <paths> made: identity, message, parent, tree; tree clean", async () => {
    const { root, store } = await kb();
    const before = show(root, "HEAD", "%H");
    const sha = await write(store, "alpha", "Alpha.\n");
    expect(committer(store).counts).toEqual({ plumbing: 1, partial: 0 });
    expect(show(root, "HEAD", "%H")).toBe(sha);
    expect(show(root, "HEAD", "%P")).toBe(before);
    expect(show(root, "HEAD", "%an <%ae>|%cn <%ce>|%B")).toBe(
      `${AUTHOR.name} <${AUTHOR.email}>|${AUTHOR.name} <${AUTHOR.email}>|concept_write: alpha`,
    );
    expect(gitIn(root, ["show", "--name-only", "--format=", "HEAD"]).trim()).toBe("data/alpha.md");
    expect(gitIn(root, ["status", "--porcelain"])).toBe("");
    expect(gitIn(root, ["reflog", "-1", "--format=%gs"]).trim()).toBe(
      "commit: concept_write: alpha",
    );

    // A second write builds on the first; the same content again commits nothing.
    const second = await write(store, "bravo", "Bravo.\n");
    expect(show(root, "HEAD", "%P")).toBe(sha);
    expect(await write(store, "bravo", "Bravo.\n")).toBeNull();
    expect(show(root, "HEAD", "%H")).toBe(second);
    expect(committer(store).counts.partial).toBe(0);
  });

  it("never commits what a person staged, before or between writes", async () => {
    const { root, store } = await kb();
    await write(store, "alpha", "Alpha.\n");
    writeFileSync(join(root, "data", "staged.md"), "---\ntype: note\n---\nmine\n");
    gitIn(root, ["add", "data/staged.md"]);
    await write(store, "bravo", "Bravo.\n");
    expect(gitIn(root, ["show", "--name-only", "--format=", "HEAD"]).trim()).toBe("data/bravo.md");
    expect(gitIn(root, ["diff", "--cached", "--name-only"]).trim()).toBe("data/staged.md");
  });

  it("builds on a HEAD someone else moved, keeping their commit", async () => {
    const { root, store } = await kb();
    await write(store, "alpha", "Alpha.\n");
    await write(store, "old", "Old.\n");
    // Their commit adds, changes and deletes: ours is built on it, its tree theirs + bravo.
    writeFileSync(join(root, "data", "theirs.md"), "---\ntype: note\n---\ntheirs\n");
    writeFileSync(join(root, "data", "alpha.md"), "---\ntype: note\n---\nchanged by them\n");
    gitIn(root, ["rm", "-q", "data/old.md"]);
    gitIn(root, ["add", "data/theirs.md", "data/alpha.md"]);
    gitIn(root, ["commit", "-q", "-m", "theirs"]);
    const theirs = show(root, "HEAD", "%H");
    await write(store, "bravo", "Bravo.\n");
    expect(show(root, "HEAD", "%P")).toBe(theirs);
    expect(committer(store).counts.partial).toBe(0);
    // Our commit differs from theirs by bravo alone: nothing of theirs reverted.
    expect(gitIn(root, ["diff", "--name-status", theirs, "HEAD"]).trim()).toBe("A\tdata/bravo.md");
    const files = gitIn(root, ["ls-tree", "-r", "--name-only", "HEAD", "data"]).split("\n");
    expect(files).toEqual(
      expect.arrayContaining(["data/alpha.md", "data/bravo.md", "data/theirs.md"]),
    );
    expect(files).not.toContain("data/old.md");
    expect(gitIn(root, ["status", "--porcelain"])).toBe("");
  });

  it("a git add that fails moves no ref: no commit, the next write commits only itself", async () => {
    const { root, store } = await kb();
    await write(store, "alpha", "Alpha.\n");
    const head = show(root, "HEAD", "%H");
    writeFileSync(join(root, ".git", "index.lock"), ""); // a person's git holds the index
    await expect(write(store, "bravo", "Bravo.\n")).rejects.toThrow(/git add failed/);
    expect(show(root, "HEAD", "%H")).toBe(head);
    rmSync(join(root, ".git", "index.lock"));
    await write(store, "charlie", "Charlie.\n");
    expect(show(root, "HEAD", "%P")).toBe(head);
    expect(gitIn(root, ["show", "--name-only", "--format=", "HEAD"]).trim()).toBe(
      "data/charlie.md",
    );
  });

  it("without the server's environment every write is a partial commit", async () => {
    const { root } = await kb();
    const store = await openKb(settingsFor(root, { gitEnv: undefined }));
    await write(store, "alpha", "Alpha.\n");
    expect(committer(store).counts).toEqual({ plumbing: 0, partial: 1 });
    expect(gitIn(root, ["show", "--name-only", "--format=", "HEAD"]).trim()).toBe("data/alpha.md");
  });

  it("a post-commit hook sends the write through git commit, which runs it", async () => {
    const { root, store } = await kb();
    const hook = join(root, ".git", "hooks", "post-commit");
    mkdirSync(join(root, ".git", "hooks"), { recursive: true });
    writeFileSync(hook, '#!/bin/sh\necho ran >> "$(git rev-parse --git-dir)/hook-ran"\n');
    chmodSync(hook, 0o755);
    await write(store, "alpha", "Alpha.\n");
    expect(committer(store).counts).toEqual({ plumbing: 0, partial: 1 });
    expect(readFileSync(join(root, ".git", "hook-ran"), "utf8")).toBe("ran\n");
  });

  describe("git processes per write", () => {
    let log: string;
    let bin: string;
    beforeAll(() => {
      bin = tmp();
      log = join(bin, "git.log");
      const realGit = gitIn(process.cwd(), ["--exec-path"]).trim();
      // The first word after git's own `-c` options is the command.
      writeFileSync(
        join(bin, "git"),
        `#!/bin/sh\nfor a in "$@"; do case "$prev" in -c) prev=;; *) case "$a" in -c) prev=-c;; *) echo "$a" >> "${log}"; break;; esac;; esac; done\nexec "${realGit}/git" "$@"\n`,
      );
      chmodSync(join(bin, "git"), 0o755);
    });

    const traced = async (fn: () => Promise<unknown>): Promise<string[]> => {
      const path = process.env.PATH;
      writeFileSync(log, "");
      process.env.PATH = `${bin}:${path}`;
      try {
        await fn();
      } finally {
        process.env.PATH = path;
      }
      return readFileSync(log, "utf8").trim().split("\n");
    };

    it("git add, then update-ref: the objects are written in process, no git commit", async () => {
      const { root, store } = await kb();
      // The first write also reads the repository's setup (rev-parse, config).
      expect([...(await traced(() => write(store, "alpha", "Alpha.\n")))].sort()).toEqual([
        "add",
        "config",
        "rev-parse",
        "update-ref",
      ]);
      const ran = await traced(() => write(store, "bravo", "Bravo.\n"));
      // HEAD moves last, once git add succeeded and every object is stored.
      expect(ran).toEqual(["add", "update-ref"]);
      // A commit by someone else in between changes nothing: the parent is read, not followed.
      writeFileSync(join(root, "data", "theirs.md"), "---\ntype: note\n---\ntheirs\n");
      gitIn(root, ["add", "data/theirs.md"]);
      gitIn(root, ["commit", "-q", "-m", "theirs"]);
      expect(await traced(() => write(store, "charlie", "Charlie.\n"))).toEqual([
        "add",
        "update-ref",
      ]);
      expect(committer(store).counts).toEqual({ plumbing: 3, partial: 0 });
    });
  });

  it("a lost update-ref race goes through git commit, which builds on the moved HEAD", async () => {
    const { root, store } = await kb();
    await write(store, "alpha", "Alpha.\n");
    // A `git` first on PATH whose `add` first lets someone else commit: HEAD moves after the
    // commit object was built on the old one, before update-ref.
    const bin = tmp();
    const realGit = gitIn(process.cwd(), ["--exec-path"]).trim();
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\ncase " $* " in *" add -A "*) sleep 0.3; GIT_AUTHOR_NAME=them GIT_AUTHOR_EMAIL=them@x GIT_COMMITTER_NAME=them GIT_COMMITTER_EMAIL=them@x "${realGit}/git" commit -q --allow-empty -m theirs;; esac\nexec "${realGit}/git" "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    let sha: string | null;
    try {
      sha = await write(store, "bravo", "Bravo.\n");
    } finally {
      process.env.PATH = path;
    }
    expect(committer(store).counts).toEqual({ plumbing: 1, partial: 1 });
    expect(committer(store).lastFallback).toBe("HEAD moved before update-ref");
    expect(show(root, "HEAD", "%H")).toBe(sha);
    expect(show(root, "HEAD^", "%an|%s")).toBe("them|theirs");
    expect(gitIn(root, ["show", "--name-only", "--format=", "HEAD"]).trim()).toBe("data/bravo.md");
    expect(gitIn(root, ["status", "--porcelain"])).toBe("");
    // The next write builds on that commit again, in process.
    await write(store, "charlie", "Charlie.\n");
    expect(committer(store).counts).toEqual({ plumbing: 2, partial: 1 });
    expect(show(root, "HEAD", "%P")).toBe(sha);
  });
});
