/**
 * Trees edited in process (tree-edit.ts) on real git objects: parsing and writing a tree gives
 * git's bytes back; an edit that changes nothing keeps the id; emptying the root gives the empty
 * tree; and each case git would build differently answers undefined (the caller's fallback to
 * git commit): a .gitattributes on the way, a submodule or a folder where a path names a file,
 * a mode git rewrites (100664) or an empty subtree git drops in a folder that is rewritten.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GitObjects, ObjectBatch } from "../../../src/kb/git/objects.js";
import {
  type PathEdit,
  parseTree,
  serializeTree,
  sortEntries,
  TreeEditor,
} from "../../../src/kb/git/tree-edit.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

const tmp = useTempDirs("carto-tree-edit-");

function repo(files: Record<string, string>): { root: string; objects: GitObjects; tree: string } {
  const root = tmp();
  git(root, ["init", "-q"]);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", "files"]);
  const objects = new GitObjects(root, join(root, ".git", "objects"), process.env);
  return { root, objects, tree: git(root, ["rev-parse", "HEAD^{tree}"]) };
}

const mktree = (root: string, lines: string[]) =>
  execFileSync("git", ["mktree", "--missing"], { cwd: root, input: `${lines.join("\n")}\n` })
    .toString()
    .trim();

async function edit(
  r: { objects: GitObjects; tree: string },
  edits: Record<string, PathEdit>,
  root = r.tree,
): Promise<string | undefined> {
  const batch = new ObjectBatch(r.objects);
  const made = await new TreeEditor(r.objects).apply(root, new Map(Object.entries(edits)), batch);
  await batch.written();
  return made;
}

describe("TreeEditor", () => {
  it("parses and writes back git's own tree bytes", () => {
    const r = repo({ "a.md": "a", "a/b.md": "b", "a-b.md": "c", "é.md": "d" });
    const body = execFileSync("git", ["cat-file", "tree", r.tree], { cwd: r.root });
    expect(serializeTree(sortEntries(parseTree(body)))).toEqual(body);
  });

  it("keeps the id when nothing changes; an emptied root is the empty tree", async () => {
    const r = repo({ "data/a.md": "a\n" });
    const blob = git(r.root, ["rev-parse", "HEAD:data/a.md"]);
    expect(await edit(r, { "data/a.md": { blob, mode: "100644" } })).toBe(r.tree);
    expect(await edit(r, { "data/missing.md": null })).toBe(r.tree);
    expect(await edit(r, { "data/a.md": null })).toBe("4b825dc642cb6eb9a060e54bf8d69288fbee4904");
  });

  it("answers undefined where git would build the tree differently", async () => {
    const r = repo({ "data/a.md": "a\n", "data/sub/b.md": "b\n", ".gitattributes": "" });
    const blob = git(r.root, ["rev-parse", "HEAD:data/a.md"]);
    const add = { blob, mode: "100644" } as const;
    expect(await edit(r, { "data/new.md": add })).toBeUndefined(); // .gitattributes at the root
    const plain = repo({ "data/a.md": "a\n", "data/sub/b.md": "b\n" });
    expect(await edit(plain, { "data/sub": add })).toBeUndefined(); // a folder named as a file
    expect(await edit(plain, { "data/a.md/x.md": add })).toBeUndefined(); // a file as a folder
    const data = git(plain.root, ["rev-parse", "HEAD:data"]);
    // A mode git rewrites, an empty subtree git drops, a submodule: in a folder that is
    // rewritten, git's tree would differ; elsewhere the folder keeps its id.
    const odd = (entry: string) =>
      mktree(plain.root, [
        `040000 tree ${data}\tdata`,
        `040000 tree ${mktree(plain.root, [entry])}\tother`,
      ]);
    const modes = odd(`100664 blob ${blob}\tgroup.md`);
    expect(await edit(plain, { "other/new.md": add }, modes)).toBeUndefined();
    expect(await edit(plain, { "data/new.md": add }, modes)).toMatch(/^[0-9a-f]{40}$/);
    const empty = odd("040000 tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\tempty");
    expect(await edit(plain, { "other/new.md": add }, empty)).toBeUndefined();
    const module = odd(`160000 commit ${"1".repeat(40)}\tmodule`);
    expect(await edit(plain, { "other/module": add }, module)).toBeUndefined();
    expect(await edit(plain, { "other/new.md": add }, module)).toMatch(/^[0-9a-f]{40}$/);
  });
});
