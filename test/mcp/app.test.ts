/** The composition root (app.ts): what createCartographer opens, serves, skips and closes. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireKbLock } from "../../src/kb/locks/kb-lock.js";
import { memoryLogger } from "../../src/logger.js";
import { createCartographer } from "../../src/mcp/app.js";
import { seedKb, testKbSettings } from "../support/kb.js";
import { MemoryAudit } from "../support/mcp-kit.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-app-");

async function kbRoots(n: number): Promise<string[]> {
  const tmp = newDir();
  const roots = [];
  for (let i = 0; i < n; i++) {
    const root = join(tmp, `kb${i}`);
    await seedKb(root);
    roots.push(root);
  }
  return roots;
}

const settings = (name: string, root: string) => testKbSettings(root, { name });

describe("createCartographer", () => {
  it("skips a repeated name and a KB named routed without opening them, one warning each", async () => {
    const [a, b, c] = await kbRoots(3);
    const logger = memoryLogger();
    const app = await createCartographer({
      kbs: [
        settings("a", a as string),
        settings("a", b as string),
        settings("routed", c as string),
      ],
      logger,
    });
    try {
      expect([...app.surfaces.keys()]).toEqual(["a"]);
      expect(app.kbs).toMatchObject([{ name: "a", status: "ok" }]);
      expect(app.kbs).toHaveLength(1);
      expect(logger.lines.filter((l) => l.includes("used twice"))).toHaveLength(1);
      expect(logger.lines.filter((l) => l.includes('named "routed"'))).toHaveLength(1);
      // Never opened: their cross-process locks are free.
      for (const root of [b, c]) {
        const lock = await acquireKbLock(settings("x", root as string), "test", logger);
        await lock.release();
      }
    } finally {
      await app.close();
    }
  });

  it("opens KBs several at a time but reports and serves them in configuration order", async () => {
    const roots = await kbRoots(5);
    const names = ["e", "d", "missing", "b", "a", "c"];
    const kbs = names.map((name, i) =>
      name === "missing"
        ? settings(name, join(newDir(), "not-a-kb"))
        : settings(name, roots[i > 2 ? i - 1 : i] as string),
    );
    const logger = memoryLogger();
    const app = await createCartographer({ kbs, logger });
    try {
      expect(app.kbs.map((k) => [k.name, k.status])).toEqual(
        names.map((n) => [n, n === "missing" ? "unavailable" : "ok"]),
      );
      expect([...app.surfaces.keys()]).toEqual(names.filter((n) => n !== "missing"));
      const mounted = logger.lines.filter((l) => l.includes("mounted KB"));
      expect(mounted.map((l) => /mounted KB '(\w+)'/.exec(l)?.[1])).toEqual(
        names.filter((n) => n !== "missing"),
      );
    } finally {
      await app.close();
    }
  });

  it("close() closes the mounts, then the audit it opened; an injected sink stays open", async () => {
    const [a] = await kbRoots(1);
    class TrackedAudit extends MemoryAudit {
      closed = false;
      override async close(): Promise<void> {
        this.closed = true;
      }
    }
    const audit = new TrackedAudit();
    const app = await createCartographer({
      kbs: [settings("a", a as string)],
      logger: memoryLogger(),
      audit,
    });
    const surface = app.surfaces.get("a");
    expect(surface).toBeDefined();
    await app.close();
    await app.close(); // idempotent
    expect(audit.closed).toBe(false);
    // The KB's lock was released with its mount.
    const lock = await acquireKbLock(settings("a", a as string), "test", memoryLogger());
    await lock.release();
  });
});
