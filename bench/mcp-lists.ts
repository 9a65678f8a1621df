/**
 * Section `mcp-lists`: tools/list bytes as served over HTTP (the JSON `result` of the answer,
 * UTF-8). Deterministic, so the figures are absolute: one default KB in the agent and full
 * profiles, and per-KB endpoints summed against /mcp/routed for 1, 3, 5, 10 and 20 KBs.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { startHttpServer } from "../src/http/server.js";
import type { KbSettings } from "../src/kb/core/types.js";
import { initKb } from "../src/kb/store/init.js";
import { silentLogger } from "../src/logger.js";
import { createCartographer } from "../src/mcp/app.js";
import type { ToolsProfile } from "../src/mcp/surface.js";
import { type MountedKb, mountKb } from "../src/runtime/mount.js";
import type { BenchContext } from "./context.js";
import { BENCH_GIT_ENV } from "./gen-kb.js";
import type { Figure, Section } from "./harness.js";
import { postRpc, rpcBody } from "./load.js";

const KB_COUNTS = [1, 3, 5, 10, 20];
const MAX_KBS = Math.max(...KB_COUNTS);
const IDENTITY = { name: BENCH_GIT_ENV.GIT_AUTHOR_NAME, email: BENCH_GIT_ENV.GIT_AUTHOR_EMAIL };

/** Names as an operator would pick them (realistic enum bytes in the routed `kb` parameter). */
function kbName(i: number): string {
  return `kb-${String(i + 1).padStart(2, "0")}`;
}

function settings(name: string, root: string): KbSettings {
  return { name, root, allowArtifactWrite: false, autocommit: true, gitAuthor: IDENTITY };
}

/** Bytes of the `result` of tools/list at `url`, with the tool count. */
async function listBytes(url: string): Promise<{ bytes: number; tools: number }> {
  const res = await postRpc(url, rpcBody("tools/list", {}));
  const doc = res.json();
  if (res.status !== 200 || doc.result === undefined)
    throw new Error(`tools/list at ${url} answered ${res.status}: ${res.text.slice(0, 300)}`);
  const result = doc.result as { tools: unknown[] };
  return { bytes: Buffer.byteLength(JSON.stringify(result)), tools: result.tools.length };
}

async function serve(mounts: MountedKb[], profile: ToolsProfile) {
  const app = await createCartographer({ mounts, logger: silentLogger });
  const server = await startHttpServer({ app, toolsProfile: profile, port: 0, version: "bench" });
  // Callers close the server only; the mounts go with it, as before.
  return { ...server, close: () => server.close().then(() => app.close()) };
}

export async function run(ctx: BenchContext): Promise<Section> {
  const dir = path.join(ctx.tmpRoot, "lists");
  await fs.mkdir(dir, { recursive: true });
  ctx.log(`mcp-lists: creating ${MAX_KBS} small KBs`);
  const all: KbSettings[] = [];
  for (let i = 0; i < MAX_KBS; i++) {
    const root = path.join(dir, kbName(i));
    await initKb(root, { gitAuthor: IDENTITY });
    all.push(settings(kbName(i), root));
  }
  const figures: Figure[] = [];

  // One default KB (served at /mcp), each profile.
  for (const profile of ["agent", "full"] as const) {
    const mounts = [await mountKb(all[0] as KbSettings, { logger: silentLogger })];
    const server = await serve(mounts, profile);
    try {
      const one = await listBytes(`${server.url}/mcp`);
      figures.push({
        name: `tools/list bytes, one KB, ${profile} profile`,
        value: one.bytes,
        unit: "B",
        target: profile === "agent" ? { on: "value", op: "<=", value: 22_000 } : undefined,
        note: `${one.tools} tools${profile === "agent" ? "; Go: ~27,400 B for 32–33 tools" : ""}`,
      });
    } finally {
      await server.close();
    }
  }

  // Per-KB endpoints summed vs routed, agent profile, one server with all KBs mounted.
  const mounts: MountedKb[] = [];
  for (const s of all) mounts.push(await mountKb(s, { logger: silentLogger }));
  const server = await serve(mounts, "agent");
  try {
    const perKb: number[] = [];
    for (const m of mounts) perKb.push((await listBytes(`${server.url}/mcp/${m.name}`)).bytes);
    for (const n of KB_COUNTS) {
      const summed = perKb.slice(0, n).reduce((a, b) => a + b, 0);
      const bound = all
        .slice(0, n)
        .map((s) => s.name)
        .join(",");
      const routed = await listBytes(`${server.url}/mcp/routed?kbs=${bound}`);
      const perKbName = `per-KB endpoints summed, ${n} KB${n > 1 ? "s" : ""}`;
      figures.push({ name: perKbName, value: summed, unit: "B" });
      const target = n === 3 ? 24_000 : n === 10 ? 26_000 : undefined;
      figures.push({
        name: `routed tools/list bytes, ${n} KB${n > 1 ? "s" : ""}`,
        value: routed.bytes,
        unit: "B",
        baseline: perKbName,
        target: target !== undefined ? { on: "value", op: "<=", value: target } : undefined,
        note: `${routed.tools} tools${n === 3 ? "; Go: 31,969 routed vs 81,633 per-KB" : ""}`,
      });
    }
  } finally {
    await server.close();
  }
  return { name: "mcp-lists", figures };
}
