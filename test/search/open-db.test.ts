import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { VISIBLE_ALL } from "../../src/kb/core/types.js";
import { memoryLogger } from "../../src/logger.js";
import { openSearchIndex } from "../../src/search/sqlite-index.js";
import { useTempDirs } from "../support/temp-dir.js";
import { doc } from "./docs.js";

const newDir = useTempDirs("carto-search-");
let dir: string;
beforeEach(() => {
  dir = newDir();
});

describe("index file", () => {
  it("persists across opens in WAL mode", () => {
    const file = path.join(dir, "sub", "index.db");
    const a = openSearchIndex(file);
    expect(a.fresh).toBe(true);
    a.upsert(doc("infra/x", { body: "persistent words" }));
    a.close();
    const b = openSearchIndex(file);
    expect(b.fresh).toBe(false);
    expect(
      b.search({ query: "persistent", limit: 5, visibility: VISIBLE_ALL }).results,
    ).toHaveLength(1);
    b.close();
    const raw = new Database(file);
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    raw.close();
  });

  it("a garbage file is replaced by an empty index with a warning, not an error", () => {
    const file = path.join(dir, "index.db");
    fs.writeFileSync(file, Buffer.alloc(8192, 0x5a));
    const logger = memoryLogger();
    const index = openSearchIndex(file, { logger });
    expect(index.fresh).toBe(true);
    expect(index.count()).toBe(0);
    expect(logger.lines.join("\n")).toMatch(/warn: search index .* rebuilding/);
    index.close();
  });

  it("a file with another schema version is rebuilt", () => {
    const file = path.join(dir, "index.db");
    const old = new Database(file);
    old.exec("CREATE TABLE concepts (id TEXT)");
    old.pragma("user_version = 999");
    old.close();
    const logger = memoryLogger();
    const index = openSearchIndex(file, { logger });
    expect(index.fresh).toBe(true);
    index.upsert(doc("a/b"));
    expect(index.count()).toBe(1);
    expect(logger.lines.join("\n")).toContain("schema version 999");
    index.close();
  });
});

describe("full rebuild", () => {
  it("replaceAll leaves the same schema, secondary indexes included, as a fresh open", () => {
    const file = path.join(dir, "index.db");
    const index = openSearchIndex(file);
    index.replaceAll([{ doc: doc("a/b") }, { doc: doc("a/c") }]);
    index.close();
    const fresh = path.join(dir, "fresh.db");
    openSearchIndex(fresh).close();
    const schema = (f: string) => {
      const db = new Database(f, { readonly: true });
      const rows = db.prepare("SELECT type, name FROM sqlite_schema ORDER BY type, name").all();
      db.close();
      return rows;
    };
    expect(schema(file)).toEqual(schema(fresh));
  });
});
