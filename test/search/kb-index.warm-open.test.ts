/**
 * The warm open asks git what changed (reconcile-scope.ts): with the snapshot the
 * last pass recorded, only the paths git names are looked at — and every change made while
 * the server was down is still reindexed: edits (committed or not), new, deleted and renamed
 * files, a file put back to its committed content, an expanded concept shadowed by its flat file.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../src/kb/core/api.js";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { openKb } from "../../src/kb/store/store.js";
import { buildKbIndex, openKbIndex, openKbIndexFile } from "../../src/search/kb-index.js";
import type { SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { commitFiles, git, seedKb, testKbSettings } from "../support/kb.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-warmgit-");
const COUNT = 40;
let root: string;
let store: KbStore;
/** Full walks of the concept files (scanConceptFiles calls) since the store was opened. */
let walks: number;

const concept = (title: string, body: string) => `---\ntype: note\ntitle: ${title}\n---\n${body}\n`;

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

beforeEach(async () => {
  root = path.join(newDir(), "kb");
  const files: Record<string, string> = {
    "data/infra/_map.md": "---\ntype: Map\ntitle: Infra\nkind: map\n---\n# Infra\n",
  };
  for (let i = 0; i < COUNT; i++)
    files[`data/infra/c${i}.md`] = concept(`Concept ${i}`, `plain text marker${i}end`);
  await seedKb(root, files);
  const real = await openKb(testKbSettings(root));
  walks = 0;
  // The real store, its full walk counted.
  store = Object.assign(Object.create(real) as KbStore, {
    scanConceptFiles: () => {
      walks++;
      return real.scanConceptFiles();
    },
  });
});

async function reopen(): Promise<{ index: SqliteSearchIndex; stats: object }> {
  walks = 0;
  return openKbIndex(store);
}

const find = (index: SqliteSearchIndex, query: string) =>
  index
    .search({ query, limit: 50, visibility: VISIBLE_ALL })
    .results.map((h) => h.id)
    .sort();

describe("warm open from git", () => {
  it("looks only at what git names, yet reindexes every change made while closed", async () => {
    (await openKbIndex(store)).index.close();
    const quiet = await reopen();
    expect(walks).toBe(0); // nothing changed: no walk, no row read
    expect(quiet.stats).toEqual({ added: 0, changed: 0, removed: 0, unchanged: COUNT });
    quiet.index.close();

    write("data/infra/c1.md", concept("Concept 1", "edited in place zebra")); // uncommitted
    await commitFiles(root, { "data/infra/c2.md": concept("Concept 2", "committed yak") });
    fs.rmSync(path.join(root, "data/infra/c3.md"));
    write("data/infra/new.md", concept("New", "untracked quokka"));
    git(root, ["mv", "data/infra/c4.md", "data/infra/moved.md"]);
    write("data/infra/c5/index.md", concept("Shadowed", "expanded walrus")); // c5.md wins
    write("data/infra/.hidden.md", concept("Hidden", "hidden narwhal")); // never walked
    const { index, stats } = await reopen();
    expect(walks).toBe(0);
    expect(stats).toEqual({ added: 2, changed: 2, removed: 2, unchanged: COUNT - 4 });
    expect(find(index, "zebra")).toEqual(["infra/c1"]);
    expect(find(index, "yak")).toEqual(["infra/c2"]);
    expect(find(index, "marker3end")).toEqual([]);
    expect(find(index, "quokka")).toEqual(["infra/new"]);
    expect(find(index, "marker4end")).toEqual(["infra/moved"]);
    expect(find(index, "walrus")).toEqual([]);
    expect(find(index, "narwhal")).toEqual([]);
    index.close();

    // The flat file goes: the expanded one now is the concept.
    fs.rmSync(path.join(root, "data/infra/c5.md"));
    const expanded = await reopen();
    expect(find(expanded.index, "walrus")).toEqual(["infra/c5"]);
    expanded.index.close();
  });

  it("a file edited, indexed, then put back to its committed content is reindexed", async () => {
    write("data/infra/c7.md", concept("Concept 7", "draft ocelot"));
    (await openKbIndex(store)).index.close(); // indexes the draft
    git(root, ["checkout", "--", "data/infra/c7.md"]); // clean again: git names it no more
    const { index } = await reopen();
    expect(walks).toBe(0);
    expect(find(index, "ocelot")).toEqual([]);
    expect(find(index, "marker7end")).toEqual(["infra/c7"]);
    index.close();
  });

  it("a file edited while a pass reads it, then put back, is reindexed", async () => {
    const index = openKbIndexFile(store);
    await buildKbIndex(store, index, {
      // After git's snapshot, before the files are read: git never saw this draft.
      onProgress: (done) => {
        if (done === 0) write("data/infra/c9.md", concept("Concept 9", "draft tapir"));
      },
    });
    expect(find(index, "tapir")).toEqual(["infra/c9"]);
    index.close();
    git(root, ["checkout", "--", "data/infra/c9.md"]);
    const again = await reopen();
    expect(walks).toBe(0);
    expect(find(again.index, "tapir")).toEqual([]);
    again.index.close();
  });

  it("a full pass (the reindex tool) also finds an edit git does not report", async () => {
    // Written an hour ago: not racily clean, so the second pass reads nothing and its record
    // names no file (a file it read would get a look on every pass).
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (let i = 0; i < COUNT; i++)
      fs.utimesSync(path.join(root, `data/infra/c${i}.md`), hourAgo, hourAgo);
    (await openKbIndex(store)).index.close();
    (await reopen()).index.close();
    git(root, ["update-index", "--assume-unchanged", "data/infra/c6.md"]);
    write("data/infra/c6.md", concept("Concept 6", "unseen gecko"));
    const index = openKbIndexFile(store);
    await buildKbIndex(store, index);
    expect(find(index, "gecko")).toEqual([]); // git names nothing: the row stands
    await buildKbIndex(store, index, { full: true });
    expect(find(index, "gecko")).toEqual(["infra/c6"]);
    index.close();
  });

  it("walks everything when git names a folder (a submodule whose files changed)", async () => {
    const sub = path.join(root, "data/infra/sub");
    fs.mkdirSync(sub, { recursive: true });
    git(sub, ["init", "-q"]);
    fs.writeFileSync(path.join(sub, "inner.md"), concept("Inner", "first heron"));
    git(sub, ["add", "-A"]);
    git(sub, ["commit", "-q", "-m", "inner"]);
    git(root, ["add", "data/infra/sub"]); // a gitlink: git lists the folder, not its files
    git(root, ["commit", "-q", "-m", "submodule"]);
    (await openKbIndex(store)).index.close();
    fs.writeFileSync(path.join(sub, "inner.md"), concept("Inner", "second egret"));
    const { index } = await reopen();
    expect(walks).toBe(1);
    expect(find(index, "egret")).toEqual(["infra/sub/inner"]);
    index.close();
  });

  it("walks everything when the recorded commit is gone or the map layout changed", async () => {
    (await openKbIndex(store)).index.close();
    write("data/infra/c8.md", concept("Concept 8", "amended lynx"));
    git(root, ["add", "-A"]);
    git(root, ["commit", "-q", "--amend", "-m", "rewritten"]);
    git(root, ["reflog", "expire", "--expire=now", "--all"]);
    git(root, ["gc", "-q", "--prune=now"]);
    const rewritten = await reopen();
    expect(walks).toBe(1);
    expect(find(rewritten.index, "lynx")).toEqual(["infra/c8"]);
    rewritten.index.close();

    write("data/ops/_map.md", "---\ntype: Map\ntitle: Ops\nkind: map\n---\n# Ops\n");
    const relaid = await reopen();
    expect(walks).toBe(1);
    relaid.index.close();
  });
});
