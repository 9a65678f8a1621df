/**
 * Section `auth` (docs/benchmarks.md "Authorization"): what authorization costs.
 *  - search p50 through the whole tool pipeline (authorize → visibility → SQL filter) for an
 *    admin vs a role that sees one map of eight; target ratio ≤ 1.5.
 *  - HTTP concept_read calls/s with auth on (a scoped token) vs off: same server code, same
 *    run, same mounted KB, concurrency 8, a fixed number of calls; target ≥ 0.9×.
 */
import { Agent, request } from "node:http";
import { compileAuth } from "../src/auth/tokens.js";
import type { Principal } from "../src/auth/types.js";
import { type HttpServerHandle, startHttpServer } from "../src/http/server.js";
import { silentLogger } from "../src/logger.js";
import { createCartographer } from "../src/mcp/app.js";
import { KbSurface } from "../src/mcp/kb-surface.js";
import { mountKb } from "../src/runtime/mount.js";
import { toolsFor } from "../src/tools/registry.js";
import type { BenchContext } from "./context.js";
import { type Section, summarize } from "./harness.js";

const QUERIES = ["gateway", "backup restore", "resolver", "latency alert", "vpn", "replica"];
const SEARCH_ROUNDS = 12;
const CONCURRENCY = 8;
const CALLS_PER_ROUND = 300;
const HTTP_ROUNDS = 8;
const TOKEN = "bench-scoped-token";

export async function run(ctx: BenchContext): Promise<Section> {
  const kb = await ctx.kb();
  const mount = await mountKb(ctx.settings(kb.root), { logger: silentLogger });
  const firstMap = kb.maps[0] as string;
  const admin: Principal = { id: "admin", policy: { admin: true, rules: [] } };
  const narrow: Principal = {
    id: "narrow",
    policy: {
      admin: false,
      rules: [{ kb: "bench", access: "r", maps: [firstMap], journals: [], types: [] }],
    },
  };
  const surface = new KbSurface({
    runtime: mount.runtime,
    specs: toolsFor(mount.settings),
    logger: silentLogger,
  });
  const call = (principal: Principal, query: string) =>
    surface.callTool(
      "search",
      { query, limit: 10 },
      { principal, transport: "in-memory", requestId: "bench" },
    );

  ctx.log(`auth: search via the tool pipeline, admin vs one map of ${kb.maps.length}`);
  const asAdmin: number[] = [];
  const asNarrow: number[] = [];
  for (let round = 0; round < SEARCH_ROUNDS + 2; round++) {
    for (const query of QUERIES) {
      let start = performance.now();
      await call(admin, query);
      const a = performance.now() - start;
      start = performance.now();
      await call(narrow, query);
      const b = performance.now() - start;
      if (round < 2) continue; // warm-up
      asAdmin.push(a);
      asNarrow.push(b);
    }
  }

  ctx.log(`auth: HTTP concept_read, auth on vs off, ${CONCURRENCY} in flight`);
  const auth = compileAuth({
    mode: true,
    roles: [],
    tokens: [{ token: TOKEN, id: "bench-reader", scopes: ["kb:bench:r"] }],
  });
  const app = await createCartographer({ mounts: [mount], logger: silentLogger });
  const common = { app, port: 0, version: "bench" };
  const on = await startHttpServer({ ...common, auth: { tokens: auth.store } });
  const off = await startHttpServer(common);
  const ids = kb.concepts.slice(0, 500).map((c) => c.id);
  let onMs = 0;
  let offMs = 0;
  try {
    await burst(off, ids, null, 100); // warm-up both
    await burst(on, ids, TOKEN, 100);
    // Short alternating rounds, the order flipped each round, so load from anything else on
    // the machine falls on both sides alike.
    for (let round = 0; round < HTTP_ROUNDS; round++) {
      if (round % 2 === 0) {
        offMs += await burst(off, ids, null, CALLS_PER_ROUND);
        onMs += await burst(on, ids, TOKEN, CALLS_PER_ROUND);
      } else {
        onMs += await burst(on, ids, TOKEN, CALLS_PER_ROUND);
        offMs += await burst(off, ids, null, CALLS_PER_ROUND);
      }
    }
  } finally {
    await on.close();
    await off.close();
    await app.close(); // closes the mount's index
  }
  const total = CALLS_PER_ROUND * HTTP_ROUNDS;
  const a = summarize(asAdmin);
  const n = summarize(asNarrow);
  return {
    name: "auth",
    figures: [
      { name: "search p50 via tools, admin", value: a.p50, unit: "ms" },
      {
        name: "search p50 via tools, role 1 map of 8",
        value: n.p50,
        unit: "ms",
        baseline: "search p50 via tools, admin",
        target: { on: "ratio", op: "<=", value: 1.5 },
      },
      {
        name: "HTTP concept_read, auth off",
        value: (total / offMs) * 1000,
        unit: "calls/s",
        note: `${total} calls, concurrency ${CONCURRENCY}`,
      },
      {
        name: "HTTP concept_read, auth on (scoped token)",
        value: (total / onMs) * 1000,
        unit: "calls/s",
        baseline: "HTTP concept_read, auth off",
        target: { on: "ratio", op: ">=", value: 0.9 },
      },
    ],
  };
}

/** `calls` concept_read POSTs, `CONCURRENCY` at a time; returns the elapsed ms. */
async function burst(
  server: HttpServerHandle,
  ids: string[],
  token: string | null,
  calls: number,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < calls) {
      const i = next++;
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: i,
        method: "tools/call",
        params: { name: "concept_read", arguments: { id: ids[i % ids.length] } },
      });
      const text = await post(server.port, body, token);
      if (!text.includes('"result"') || text.includes('"isError":true'))
        throw new Error(`concept_read failed: ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return performance.now() - start;
}

function post(port: number, body: string, token: string | null): Promise<string> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: "POST", path: "/mcp/bench", headers, agent: AGENT },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const AGENT = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
