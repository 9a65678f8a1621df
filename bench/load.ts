/**
 * HTTP load generator for the MCP benchmarks. The client runs in a worker thread (its own event
 * loop, another core) so its cost does not land on the server's loop, and it is the same
 * cheap client (node:http, keep-alive, raw JSON-RPC POSTs) for every server measured.
 */
import { request } from "node:http";
import { Worker } from "node:worker_threads";

export const MCP_HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
};

export interface LoadJob {
  url: string;
  /** JSON-RPC bodies; call i sends bodies[i % length]. */
  bodies: string[];
  concurrency: number;
  calls: number;
  warmup: number;
}

export interface LoadResult {
  latenciesMs: number[];
  elapsedMs: number;
  callsPerSec: number;
  errors: number;
  firstError: string | null;
}

// Plain CommonJS evaluated in the worker (no TS loader there). An answer counts as an error
// unless it is HTTP 200 with neither a JSON-RPC error nor an isError tool result.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const job = workerData;
const url = new URL(job.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
const headers = ${JSON.stringify(MCP_HEADERS)};
let errors = 0;
let firstError = null;
function one(body) {
  return new Promise((resolve) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: "POST", agent,
        headers: { ...headers, "Content-Length": Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200 || text.includes('"isError":true') || text.includes('"error":{')) {
            errors++;
            if (firstError === null) firstError = res.statusCode + " " + text.slice(0, 300);
          }
          resolve();
        });
      },
    );
    req.on("error", (e) => { errors++; if (firstError === null) firstError = String(e); resolve(); });
    req.end(body);
  });
}
async function drive(total, lat) {
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      await one(job.bodies[i % job.bodies.length]);
      if (lat) lat[i] = performance.now() - t;
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, lane));
}
(async () => {
  await drive(job.warmup, null);
  errors = 0;
  const lat = new Float64Array(job.calls);
  const start = performance.now();
  await drive(job.calls, lat);
  const elapsedMs = performance.now() - start;
  agent.destroy();
  parentPort.postMessage({ lat, elapsedMs, errors, firstError });
})();
`;

export function runLoad(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: job });
    worker.once("error", reject);
    worker.once(
      "message",
      (m: { lat: Float64Array; elapsedMs: number; errors: number; firstError: string | null }) => {
        void worker.terminate();
        resolve({
          latenciesMs: Array.from(m.lat),
          elapsedMs: m.elapsedMs,
          callsPerSec: job.calls / (m.elapsedMs / 1000),
          errors: m.errors,
          firstError: m.firstError,
        });
      },
    );
  });
}

let rpcId = 0;

/** One JSON-RPC request body. */
export function rpcBody(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params });
}

/** A tools/call body. */
export function callBody(tool: string, args: Record<string, unknown>): string {
  return rpcBody("tools/call", { name: tool, arguments: args });
}

/** POSTs one JSON-RPC request (no initialize: the stateless transport does not need one). */
export function postRpc(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; json: () => { result?: unknown; error?: unknown } }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: "POST",
        headers: { ...MCP_HEADERS, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
