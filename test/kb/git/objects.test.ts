/**
 * Git objects written and read in process (objects.ts), checked against git itself: the id is
 * `git hash-object`'s, a written object is one git reads, stored read-only, through a temp file
 * that never stays; an object already there is kept (its mtime freshened, as git does); a
 * packed object is read through git; a batch knows its ids at once and reports a failed write.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  readdirSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GitObjects, ObjectBatch, objectId } from "../../../src/kb/git/objects.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

const tmp = useTempDirs("carto-objects-");

function repo(): { root: string; objects: GitObjects } {
  const root = tmp();
  git(root, ["init", "-q"]);
  return { root, objects: new GitObjects(root, join(root, ".git", "objects"), process.env) };
}

const hashObject = (root: string, body: string, type = "blob") =>
  execFileSync("git", ["hash-object", "-t", type, "--stdin"], { cwd: root, input: body })
    .toString()
    .trim();

describe("GitObjects", () => {
  it("ids are git's; a written object is git's to read, read-only, no temp file left", async () => {
    const { root, objects } = repo();
    const body = Buffer.from("héllo\n");
    expect(objectId("blob", body)).toBe(hashObject(root, "héllo\n"));
    const sha = await objects.write("blob", body);
    expect(git(root, ["cat-file", "-p", sha])).toBe("héllo");
    const file = join(root, ".git", "objects", sha.slice(0, 2), sha.slice(2));
    expect(statSync(file).mode & 0o777).toBe(0o444);
    const left = readdirSync(join(root, ".git", "objects", sha.slice(0, 2)));
    expect(left).toEqual([sha.slice(2)]);
    expect((await objects.read(sha, "blob")).toString()).toBe("héllo\n");
  });

  it("an object already there is kept, its mtime freshened", async () => {
    const { objects, root } = repo();
    const sha = await objects.write("blob", Buffer.from("x"));
    const file = join(root, ".git", "objects", sha.slice(0, 2), sha.slice(2));
    utimesSync(file, new Date(2000, 0, 1), new Date(2000, 0, 1));
    const before = statSync(file);
    await objects.write("blob", Buffer.from("x"));
    const after = statSync(file);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBeGreaterThan(before.mtimeMs + 1e9);
  });

  it("reads a packed object through git, and refuses a damaged loose one", async () => {
    const { root, objects } = repo();
    writeFileSync(join(root, "a.md"), "packed\n");
    git(root, ["add", "a.md"]);
    git(root, ["commit", "-q", "-m", "one"]);
    const tree = git(root, ["rev-parse", "HEAD^{tree}"]);
    const loose = await objects.read(tree, "tree");
    git(root, ["gc", "-q", "--prune=now"]);
    expect(existsSync(join(root, ".git", "objects", tree.slice(0, 2), tree.slice(2)))).toBe(false);
    expect(await objects.read(tree, "tree")).toEqual(loose);
    await expect(objects.read(tree, "commit")).rejects.toThrow(/git cat-file failed/);
    const blob = await objects.write("blob", Buffer.from("to damage"));
    const file = join(root, ".git", "objects", blob.slice(0, 2), blob.slice(2));
    execFileSync("chmod", ["u+w", file]);
    truncateSync(file, 5);
    await expect(objects.read(blob, "blob")).rejects.toThrow();
  });

  it("a batch answers ids at once, stores them concurrently and reports a failed write", async () => {
    const { root, objects } = repo();
    const batch = new ObjectBatch(objects);
    const ids = ["a", "b", "c"].map((t) => batch.put("blob", Buffer.from(t)));
    expect(ids).toEqual(["a", "b", "c"].map((t) => hashObject(root, t)));
    await batch.written();
    for (const id of ids) expect(git(root, ["cat-file", "-t", id])).toBe("blob");
    // An objects folder that is a file: every write fails, and written() says so.
    writeFileSync(join(root, "not-a-folder"), "");
    const broken = new ObjectBatch(new GitObjects(root, join(root, "not-a-folder"), process.env));
    broken.put("blob", Buffer.from("lost"));
    await expect(broken.written()).rejects.toThrow();
  });
});
