/**
 * Whole-KB passes over real HTTP with read-only tokens (docs/operations.md "Whole-KB passes"):
 * a JSON-RPC batch of lint calls and parallel lint POSTs are admitted up to the KB's pass queue
 * and its per-token share, the rest answered `busy` (no crash, nothing else refused), another
 * token still gets its pass in, and /health keeps answering while the passes run.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenStore, tokenDigest } from "../../src/auth/tokens.js";
import type { HttpServerHandle } from "../../src/http/server.js";
import { silentLogger } from "../../src/logger.js";
import { closeMount, type MountedKb, mountKb } from "../../src/runtime/mount.js";
import { PassQueue } from "../../src/tools/pass-queue.js";
import { seedKb, testKbSettings } from "../support/kb.js";
import { manyConcepts } from "../support/many-concepts.js";
import { principal } from "../support/mcp-kit.js";
import { tempDir } from "../support/temp-dir.js";
import { MCP_HEADERS, raw, serveMounts } from "./helpers.js";

const READER_A = "canary-reader-a-5e1d";
const READER_B = "canary-reader-b-90c2";
const LIMITS = { concurrency: 1, perPrincipal: 3, queued: 5, waitMs: 60_000 };

const tmp = tempDir("carto-passes-");
let mount: MountedKb;
let server: HttpServerHandle;

beforeAll(async () => {
  const root = join(tmp.dir, "kb");
  await seedKb(root, manyConcepts(1500, 2048));
  mount = await mountKb(testKbSettings(root, { name: "k" }), { logger: silentLogger });
  mount.runtime.passes = new PassQueue(LIMITS);
  const tokens = new TokenStore([
    { digest: tokenDigest(READER_A), principal: principal("reader-a", [{ kb: "k", access: "r" }]) },
    { digest: tokenDigest(READER_B), principal: principal("reader-b", [{ kb: "k", access: "r" }]) },
  ]);
  server = await serveMounts([mount], { auth: { tokens } });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await closeMount(mount).catch(() => {});
  tmp.cleanup();
});

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

async function post(token: string, body: unknown): Promise<unknown> {
  const res = await raw(server.port, {
    path: "/mcp",
    headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** The text of each tools/call answer, in id order. */
function texts(answers: unknown): string[] {
  const list = (Array.isArray(answers) ? answers : [answers]) as Array<{
    id: number;
    result: { content: Array<{ text: string }> };
  }>;
  return list.sort((a, b) => a.id - b.id).map((a) => a.result.content[0]?.text ?? "");
}

describe("whole-KB passes from read-only tokens", () => {
  it("a 12-call lint batch: the token's share runs, the rest is busy, the server lives", async () => {
    const batch = Array.from({ length: 12 }, (_, i) => call(i + 1, "lint"));
    const answers = texts(await post(READER_A, batch));
    const ok = answers.filter((t) => t.startsWith('{"checks":'));
    const busy = answers.filter((t) => t.startsWith("busy: lint: "));
    expect(ok).toHaveLength(LIMITS.perPrincipal);
    expect(busy).toHaveLength(12 - LIMITS.perPrincipal);
    expect(busy[0]).toContain("this token already has 3 whole-KB passes running or waiting");
    // Not a pass: answered at once whatever the queue holds.
    expect(texts(await post(READER_A, call(99, "kb_status")))[0]).toContain('"concepts":1500');
  });

  it("parallel lint POSTs of two tokens: each token's share is held, both get passes in", async () => {
    const posts = [
      ...Array.from({ length: 6 }, (_, i) => post(READER_A, call(i, "lint"))),
      ...Array.from({ length: 6 }, (_, i) => post(READER_B, call(i, "validate"))),
    ];
    const answers = (await Promise.all(posts)).flatMap(texts);
    const a = answers.slice(0, 6);
    const b = answers.slice(6);
    expect(a.filter((t) => t.startsWith('{"checks":'))).toHaveLength(3);
    expect(b.filter((t) => t.startsWith('{"checks":') || t.startsWith('{"checked":'))).toHaveLength(
      3,
    );
    expect([...a, ...b].filter((t) => t.startsWith("busy: "))).toHaveLength(6);
  });

  it("/health keeps answering while passes run", async () => {
    const running = Promise.all(
      [READER_A, READER_B].flatMap((token) => [0, 1].map((i) => post(token, call(i, "lint")))),
    );
    let done = false;
    void running.finally(() => {
      done = true;
    });
    const latencies: number[] = [];
    let sawRunning = false;
    while (!done) {
      sawRunning ||= mount.runtime.passes.stats.running > 0;
      const start = performance.now();
      const res = await raw(server.port, { method: "GET", path: "/health" });
      expect(res.status).toBe(200);
      latencies.push(performance.now() - start);
      await new Promise((r) => setTimeout(r, 10));
    }
    await running;
    expect(sawRunning).toBe(true);
    expect(latencies.length).toBeGreaterThan(3);
    // Generous for a loaded 2-core machine: a pass never holds the event loop for long.
    expect(Math.max(...latencies)).toBeLessThan(2000);
  });
});
