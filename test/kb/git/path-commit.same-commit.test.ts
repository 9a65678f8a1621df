/**
 * A commit written in process is the one `git commit <paths>` makes (docs/decisions.md "A write
 * commits through objects written in process"): the same writes on two copies of a repository —
 * one committed in process, one by git commit (a committer without the server's environment) —
 * give the same tree, author, committer, message and time zone, for names git orders by bytes
 * (a folder beside a file of the same stem, non-ASCII names), nested new folders, a deletion that
 * empties folders, an executable file and a change that changes nothing.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { PathCommitter } from "../../../src/kb/git/path-commit.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { AUTHOR } from "../helpers.js";

const tmp = useTempDirs("carto-same-commit-");

let ours: { root: string; committer: PathCommitter };
let theirs: { root: string; committer: PathCommitter };

beforeEach(() => {
  const root = join(tmp(), "a");
  mkdirSync(join(root, "data", "old", "deep"), { recursive: true });
  git(root, ["init", "-q", "-b", "main"]);
  writeFileSync(join(root, "data", "index.md"), "# Index\n");
  writeFileSync(join(root, "data", "old", "deep", "only.md"), "only\n");
  writeFileSync(join(root, "data", "old", "keep.md"), "keep\n");
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", "start"]);
  const twin = join(tmp(), "b");
  cpSync(root, twin, { recursive: true });
  ours = { root, committer: new PathCommitter(root, process.env) };
  theirs = { root: twin, committer: new PathCommitter(twin) };
});

/** Applies `files` (path → text, null: delete) to both copies and commits them on each. */
async function both(files: Record<string, string | null>, message: string, executable = "") {
  const made: Array<string | null> = [];
  for (const side of [ours, theirs]) {
    for (const [path, text] of Object.entries(files)) {
      const abs = join(side.root, path);
      if (text === null) rmSync(abs);
      else {
        mkdirSync(dirname(abs), { recursive: true });
        writeFileSync(abs, text);
        if (path === executable) chmodSync(abs, 0o755);
      }
    }
    made.push(await side.committer.commit(Object.keys(files), message, AUTHOR));
  }
  return made;
}

const show = (root: string, format: string) =>
  git(root, ["log", "-1", "--date=raw", `--format=${format}`, "HEAD"]);

function expectSameCommit(): void {
  // %T tree, identities, message, the time zone of both dates (the seconds may differ).
  const format = "%T|%an <%ae>|%cn <%ce>|%B|%ad|%cd";
  const [a, b] = [show(ours.root, format), show(theirs.root, format)];
  const zones = (s: string) => s.replace(/\|(\d+) ([+-]\d{4})\|(\d+) ([+-]\d{4})$/, "|$2|$4");
  expect(zones(a)).toBe(zones(b));
  expect(show(ours.root, "%ad")).toBe(show(ours.root, "%cd")); // one time for both, as git
  expect(git(ours.root, ["status", "--porcelain"])).toBe("");
  expect(git(ours.root, ["fsck", "--strict", "--no-dangling"])).toBe("");
}

describe("a commit written in process equals git commit <paths>", () => {
  it("orders names by bytes, folders as name + '/', and creates nested folders", async () => {
    const [a, b] = await both(
      {
        "data/a.md": "a\n",
        "data/a/b.md": "a/b\n",
        "data/a-b.md": "a-b\n",
        "data/a0.md": "a0\n",
        "data/new/one/two/three.md": "deep\n",
        "data/é.md": "e acute\n",
        "data/\u{1F600}.md": "astral\n",
        "data/\uFFFD.md": "replacement\n",
        "data/with space.md": "space\n",
      },
      "many names",
    );
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(ours.committer.counts).toEqual({ plumbing: 1, partial: 0 });
    expect(theirs.committer.counts).toEqual({ plumbing: 0, partial: 1 });
    expectSameCommit();
  });

  it("a change, a deletion that empties folders and an executable file in one commit", async () => {
    await both(
      {
        "data/index.md": "# Index\n\nChanged.\n",
        "data/old/deep/only.md": null,
        "data/run.sh": "#!/bin/sh\n",
      },
      "change, delete\n\nA body line.",
      "data/run.sh",
    );
    expectSameCommit();
    expect(git(ours.root, ["ls-tree", "-r", "--name-only", "HEAD"]).split("\n")).not.toContain(
      "data/old/deep/only.md",
    );
    await both({ "data/run.sh": "#!/bin/sh\necho hi\n" }, "executable", "data/run.sh");
    expectSameCommit();
    expect(git(ours.root, ["ls-tree", "HEAD", "data/run.sh"])).toMatch(/^100755 blob /);
    expect(ours.committer.counts).toEqual({ plumbing: 2, partial: 0 });
  });

  it("a write that changes nothing commits nothing, and leaves neither temp file nor process", async () => {
    const head = git(ours.root, ["rev-parse", "HEAD"]);
    expect(await both({ "data/index.md": "# Index\n" }, "same bytes")).toEqual([null, null]);
    expect(git(ours.root, ["rev-parse", "HEAD"])).toBe(head);
    const objects = join(ours.root, ".git", "objects");
    const temps = readdirSync(objects, { recursive: true }).filter((f) =>
      String(f).includes("tmp_obj_"),
    );
    expect(temps).toEqual([]);
    // Every git the writes ran has exited: none is a child of this process any more.
    const children = execFileSync("ps", ["-o", "comm=", "--ppid", String(process.pid)], {
      encoding: "utf8",
    })
      .split("\n")
      .filter((c) => c.trim() !== "" && c.trim() !== "ps");
    expect(children).toEqual([]);
  });
});
