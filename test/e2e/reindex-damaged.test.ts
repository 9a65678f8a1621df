/**
 * `cartographer reindex` always recovers a damaged index (docs/decisions.md "A damaged index file
 * is moved aside"): the built binary on a KB whose index.db was damaged on disk — a corrupt leaf
 * page of the concepts table (the old reconcile and reindex both failed on it), and garbage over
 * the whole file beside a WAL.
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, GIT_ENV, runBin, tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function kbWithIndex(): Promise<{ dir: string; root: string; db: string }> {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const env = cleanEnv(GIT_ENV);
  expect((await runBin(["kb", "create", "notes", "--data", "kbs"], { cwd: t.dir, env })).code).toBe(
    0,
  );
  const root = join(t.dir, "kbs", "notes");
  mkdirSync(join(root, "data", "misc"));
  for (let i = 0; i < 120; i++) {
    const body = `word${i}z ${"filler text about disks and networks ".repeat(10)}`;
    writeFileSync(
      join(root, "data", "misc", `c${i}.md`),
      `---\ntype: note\ntitle: C ${i}\n---\n${body}\n`,
    );
  }
  expect((await runBin(["reindex", "--kb", root], { cwd: t.dir, env })).code).toBe(0);
  return { dir: t.dir, root, db: join(root, ".cartographer", "index.db") };
}

async function reindex(dir: string, root: string) {
  const res = await runBin(["reindex", "--kb", root], { cwd: dir, env: cleanEnv(GIT_ENV) });
  return { ...res, stats: res.code === 0 ? JSON.parse(res.stdout) : null };
}

describe("cartographer reindex on a damaged index", () => {
  it("recovers from a corrupt leaf page of the concepts table", async () => {
    const { dir, root, db } = await kbWithIndex();
    const raw = new Database(db, { readonly: true });
    const pages = raw
      .prepare(
        "SELECT pageno FROM dbstat WHERE name = 'concepts' AND pagetype = 'leaf' ORDER BY pageno DESC LIMIT 2",
      )
      .pluck()
      .all() as number[];
    raw.close();
    const fd = openSync(db, "r+");
    for (const page of pages) writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
    closeSync(fd);
    const res = await reindex(dir, root);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stats.added + res.stats.changed + res.stats.unchanged).toBe(120);
    expect(res.stderr).toMatch(
      /warn: search index .* is damaged .*moved aside to index\.db\.corrupt-/,
    );
    expect(
      readdirSync(join(root, ".cartographer")).some((f) => f.startsWith("index.db.corrupt-")),
    ).toBe(true);
  });

  it("recovers from garbage over the whole file with a WAL beside it", async () => {
    const { dir, root, db } = await kbWithIndex();
    writeFileSync(`${db}-wal`, Buffer.alloc(8192, 0x11));
    writeFileSync(db, Buffer.alloc(statSync(db).size, 0x5a));
    const res = await reindex(dir, root);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stats.added).toBe(120);
    const again = await reindex(dir, root);
    expect(again.code).toBe(0);
    expect(again.stats).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 120 });
  });
});
