/**
 * A damaged index.db (garbage, truncated, a torn WAL or SHM, unreadable) is moved aside and
 * rebuilt with a warning, on open, on refresh and on reindex; never fatal (docs/decisions.md "A
 * damaged index file is moved aside"). Real files damaged on disk, real store and SQLite.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KbStore } from "../../src/kb/core/api.js";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { openKb } from "../../src/kb/store/store.js";
import { memoryLogger } from "../../src/logger.js";
import { kbIndexPath, openKbIndex, rebuildKbIndex } from "../../src/search/index.js";
import { buildKbIndex, openKbIndexFile, refreshKbIndex } from "../../src/search/kb-index.js";
import type { SqliteSearchIndex } from "../../src/search/sqlite-index.js";
import { makeTempKb, type TempKb, testSettings } from "../support/tool-kb.js";

const CONCEPTS = 150;
let kb: TempKb;
let store: KbStore;
let dbPath: string;

beforeEach(async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < CONCEPTS; i++) {
    const words = `needle${i}z ${"ordinary filler text about storage and networks ".repeat(12)}`;
    files[`data/ops/c${i}.md`] = `---\ntype: note\ntitle: Concept ${i}\n---\n${words}\n`;
  }
  kb = await makeTempKb({ files });
  kb.runtime.index.close(); // the tests reopen it after damaging the files
  store = await openKb(testSettings(kb.root));
  dbPath = kbIndexPath(store);
});
afterEach(() => kb.cleanup());

const found = (index: SqliteSearchIndex, i: number) =>
  index
    .search({ query: `needle${i}z`, limit: 5, visibility: VISIBLE_ALL })
    .results.map((h) => h.id);

/** Copies index.db, -wal and -shm while a writer holds un-checkpointed changes: a crash image. */
function crashImage(): void {
  const crash = `${dbPath}.crash`;
  const db = new Database(dbPath);
  db.pragma("wal_autocheckpoint = 0");
  db.prepare("UPDATE concepts SET title = title || ' (edited)'").run();
  for (const suffix of ["", "-wal", "-shm"]) fs.copyFileSync(dbPath + suffix, crash + suffix);
  db.close();
  for (const suffix of ["", "-wal", "-shm"]) {
    fs.rmSync(dbPath + suffix, { force: true });
    fs.renameSync(crash + suffix, dbPath + suffix);
  }
  expect(fs.statSync(`${dbPath}-wal`).size).toBeGreaterThan(0);
}

function garbage(file: string, size = fs.statSync(file).size): void {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7919 + 13) & 0xff;
  fs.writeFileSync(file, bytes);
}

const DAMAGE: Record<string, () => void> = {
  "garbage db with a WAL file (crash)": () => {
    crashImage();
    garbage(dbPath);
  },
  "truncated db": () => fs.truncateSync(dbPath, Math.floor(fs.statSync(dbPath).size / 3)),
  "garbage pages in the middle of the db": () => {
    const size = fs.statSync(dbPath).size;
    const fd = fs.openSync(dbPath, "r+");
    const junk = Buffer.alloc(size - 8192, 0xa5);
    fs.writeSync(fd, junk, 0, junk.length, 4096);
    fs.closeSync(fd);
  },
  "garbage in the last pages of the db (the open probe passes)": () => {
    const size = fs.statSync(dbPath).size;
    const fd = fs.openSync(dbPath, "r+");
    const junk = Buffer.alloc(Math.floor(size / 4), 0xa5);
    fs.writeSync(fd, junk, 0, junk.length, size - junk.length);
    fs.closeSync(fd);
  },
  "garbage in the concepts table's last leaf pages (the old probe passed)": () => {
    const db = new Database(dbPath, { readonly: true });
    const pages = db
      .prepare(
        "SELECT pageno FROM dbstat WHERE name = 'concepts' AND pagetype = 'leaf' ORDER BY pageno DESC LIMIT 2",
      )
      .pluck()
      .all() as number[];
    db.close();
    expect(pages.length).toBeGreaterThan(0);
    const fd = fs.openSync(dbPath, "r+");
    for (const page of pages)
      fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
    fs.closeSync(fd);
  },
  "garbage WAL": () => {
    crashImage();
    garbage(`${dbPath}-wal`);
  },
  "garbage SHM": () => {
    crashImage();
    garbage(`${dbPath}-shm`);
  },
  "WAL with a valid header and torn frames": () => {
    crashImage();
    const wal = `${dbPath}-wal`;
    const size = fs.statSync(wal).size;
    const fd = fs.openSync(wal, "r+");
    const junk = Buffer.alloc(Math.min(8192, size - 64), 0x3c);
    fs.writeSync(fd, junk, 0, junk.length, 64);
    fs.closeSync(fd);
  },
};

function asideFiles(): string[] {
  return fs.readdirSync(path.dirname(dbPath)).filter((f) => f.includes(".corrupt-"));
}

describe("a damaged index is moved aside and rebuilt, never fatal", () => {
  for (const [name, damage] of Object.entries(DAMAGE)) {
    it(`on open: ${name}`, async () => {
      damage();
      const logger = memoryLogger();
      const { index } = await openKbIndex(store, { logger });
      try {
        for (const i of [0, 77, CONCEPTS - 1]) expect(found(index, i)).toEqual([`ops/c${i}`]);
        expect(index.count()).toBe(CONCEPTS);
      } finally {
        index.close();
      }
      // Either SQLite could read it (a torn WAL is ignored) or it was moved aside with a warning.
      if (asideFiles().length > 0) expect(logger.lines.join("\n")).toMatch(/warn: search index/);
    });

    it(`in the server's background build (quick_check on a worker): ${name}`, async () => {
      damage();
      const logger = memoryLogger();
      const index = openKbIndexFile(store, { logger });
      try {
        await buildKbIndex(store, index);
        await index.checkIntegrity(); // as mount.ts: after the pass, then rebuild when damaged
        if (index.damaged) await buildKbIndex(store, index);
        for (const i of [0, 77, CONCEPTS - 1]) expect(found(index, i)).toEqual([`ops/c${i}`]);
        expect(index.count()).toBe(CONCEPTS);
      } finally {
        index.close();
      }
      if (asideFiles().length > 0) expect(logger.lines.join("\n")).toMatch(/search index/);
    });

    it(`on reindex: ${name}`, async () => {
      damage();
      const logger = memoryLogger();
      const stats = await rebuildKbIndex(store, { logger });
      expect(stats.added + stats.changed + stats.unchanged).toBe(CONCEPTS);
      const { index } = await openKbIndex(store);
      try {
        expect(found(index, 42)).toEqual(["ops/c42"]);
      } finally {
        index.close();
      }
    });
  }

  it("keeps the damaged files beside it as index.db.corrupt-<time>", async () => {
    crashImage();
    garbage(dbPath);
    const logger = memoryLogger();
    const { index, rebuilt } = await openKbIndex(store, { logger });
    index.close();
    expect(rebuilt).toBe(true);
    const aside = asideFiles();
    expect(aside.some((f) => /^index\.db\.corrupt-[0-9TZ-]+$/.test(f))).toBe(true);
    expect(aside.some((f) => /^index\.db\.corrupt-[0-9TZ-]+-wal$/.test(f))).toBe(true);
    expect(logger.lines.join("\n")).toMatch(/moved aside to index\.db\.corrupt-/);
  });

  it("an index damaged while open is recovered by the next refresh", async () => {
    const logger = memoryLogger();
    const { index } = await openKbIndex(store, { logger });
    try {
      // Another connection's write makes this one drop its page cache (WAL mode), so the
      // damage below is read from disk; page 1 (the schema) and the WAL stay intact.
      const other = new Database(dbPath);
      other.pragma("wal_checkpoint(TRUNCATE)");
      other.prepare("UPDATE meta SET value = value").run();
      other.close();
      const size = fs.statSync(dbPath).size;
      const fd = fs.openSync(dbPath, "r+");
      fs.writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
      fs.closeSync(fd);
      // Queries meet the damage: a clear error (not SQLite's), and the index is marked.
      const errors = [0, 40, 80, 120].map((i) => {
        try {
          found(index, i);
          return null;
        } catch (err) {
          return err;
        }
      });
      expect(errors.some((e) => e !== null)).toBe(true);
      for (const e of errors.filter((x) => x !== null)) {
        expect(e).toMatchObject({ code: "internal", message: expect.stringMatching(/rebuilt/) });
      }
      expect(index.damaged).toBe(true);
      await refreshKbIndex(store, index);
      expect(found(index, 5)).toEqual(["ops/c5"]);
      expect(index.count()).toBe(CONCEPTS);
    } finally {
      index.close();
    }
  });

  it.skipIf(process.getuid?.() === 0)("on open: an unreadable db file", async () => {
    fs.chmodSync(dbPath, 0o000);
    const logger = memoryLogger();
    const { index } = await openKbIndex(store, { logger });
    try {
      expect(found(index, 3)).toEqual(["ops/c3"]);
    } finally {
      index.close();
    }
    expect(logger.lines.join("\n")).toMatch(/warn: search index/);
  });
});
