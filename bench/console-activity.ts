/**
 * Section `console-activity`: time to the first byte of the console's activity page on a
 * generated 100,000-concept KB (one import commit of every file, then 60 tool commits), as an
 * admin and as a principal limited to one map, over real HTTP on 127.0.0.1: the first page (tool
 * commits), the page holding the 100,000-file import commit, and a sparse filter (a tool no
 * commit used: the page stops at its scan bound). Target ≤ 100 ms. `BENCH_100K_KB=<root>` reuses
 * a KB generated earlier (it is then kept, and 60 more commits land on it);
 * `npm run bench -- console-activity` runs only this section.
 */
import { request } from "node:http";
import path from "node:path";
import { TokenStore, tokenDigest } from "../src/auth/tokens.js";
import { startHttpServer } from "../src/http/server.js";
import { silentLogger } from "../src/logger.js";
import { createCartographer } from "../src/mcp/app.js";
import { LOCAL_ADMIN } from "../src/mcp/context.js";
import { mountKb } from "../src/runtime/mount.js";
import type { BenchContext } from "./context.js";
import { generateKb } from "./gen-kb.js";
import { type Figure, type Section, summarize } from "./harness.js";
import { MAP_NAMES } from "./words.js";

const CONCEPTS = 100_000;
const ROUNDS = 20;
const ADMIN = "bench-console-admin";
const NARROW = "bench-console-narrow";

export async function run(ctx: BenchContext): Promise<Section> {
  const given = process.env.BENCH_100K_KB;
  const root = given ?? path.join(ctx.tmpRoot, "kb-console-100k");
  if (!given) {
    ctx.log(`console-activity: generating ${CONCEPTS} concepts under ${root} (minutes)`);
    await generateKb(root, { concepts: CONCEPTS, maps: 8, seed: 7 });
  }
  const map = MAP_NAMES[0] as string;
  const mount = await mountKb(
    {
      name: "big",
      root,
      allowArtifactWrite: false,
      gitAuthor: { name: "bench", email: "bench@localhost" },
      autocommit: true,
    },
    { logger: silentLogger },
  );
  const app = await createCartographer({
    mounts: [mount],
    logger: silentLogger,
    auditLog: { path: path.join(ctx.tmpRoot, "console-audit", "audit.jsonl"), mode: "required" },
  });
  const tokens = new TokenStore([
    { digest: tokenDigest(ADMIN), principal: { id: "admin", policy: { admin: true, rules: [] } } },
    {
      digest: tokenDigest(NARROW),
      principal: {
        id: "narrow",
        policy: {
          admin: false,
          rules: [{ kb: "big", access: "r", maps: [map], journals: [], types: [] }],
        },
      },
    },
  ]);
  const server = await startHttpServer({ app, port: 0, version: "bench", auth: { tokens } });
  const figures: Figure[] = [];
  try {
    ctx.log("console-activity: waiting for the index, then 60 tool commits");
    await mount.runtime.indexStatus.settled(30 * 60_000);
    const surface = app.surfaces.get("big");
    for (let i = 0; i < 60; i++)
      await surface?.callTool(
        "concept_write",
        { id: `${map}/console-bench-${i}`, frontmatter: { type: "note" }, body: `bench ${i}\n` },
        { principal: LOCAL_ADMIN, transport: "in-memory", requestId: "" },
      );
    const cookies = {
      admin: await signIn(server.port, ADMIN),
      narrow: await signIn(server.port, NARROW),
    };
    const pages: Array<[string, string]> = [
      ["first page", "/console/big/activity"],
      ["page with the 100k-file commit", "/console/big/activity?at=50"],
      ["sparse filter (scan bound)", "/console/big/activity?tool=no_such_tool"],
    ];
    for (const [who, cookie] of Object.entries(cookies))
      for (const [label, url] of pages) {
        await ttfb(server.port, url, cookie); // warm: the audit window, git's object cache
        const samples: number[] = [];
        for (let i = 0; i < ROUNDS; i++) samples.push(await ttfb(server.port, url, cookie));
        const s = summarize(samples);
        figures.push({
          name: `activity TTFB p50, ${who}, ${label}`,
          value: s.p50,
          unit: "ms",
          target: { on: "value", op: "<=", value: 100 },
          note: `p95 ${s.p95.toFixed(1)} ms, ${ROUNDS} requests, ${CONCEPTS} concepts`,
        });
      }
  } finally {
    await server.close();
    await app.close();
  }
  return { name: "console-activity", figures };
}

/** Milliseconds until the status line and headers of GET `path` arrived (the page is rendered whole before them). */
function ttfb(port: number, path: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({ host: "127.0.0.1", port, path, headers: { Cookie: cookie } }, (res) => {
      const ms = performance.now() - started;
      if (res.statusCode !== 200) reject(new Error(`GET ${path} answered ${res.statusCode}`));
      res.resume();
      res.on("end", () => resolve(ms));
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

/** Signs in through the console's form; the Cookie header value. */
async function signIn(port: number, token: string): Promise<string> {
  const page = await fetch(`http://127.0.0.1:${port}/console/signin`, {
    signal: AbortSignal.timeout(10_000),
  });
  const csrf = /name="_csrf" value="([^"]*)"/.exec(await page.text())?.[1] ?? "";
  const r = await fetch(`http://127.0.0.1:${port}/console/signin`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: `http://127.0.0.1:${port}`,
    },
    body: new URLSearchParams({ _csrf: csrf, token, next: "/" }).toString(),
    signal: AbortSignal.timeout(10_000),
  });
  const set = r.headers.get("set-cookie");
  if (r.status !== 303 || set === null) throw new Error(`sign-in answered ${r.status}`);
  return set.split(";")[0] as string;
}
