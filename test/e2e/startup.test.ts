/**
 * Startup of the built binary (docs/benchmarks.md "Startup and scale"): a stdio server answers
 * initialize and a search on a KB with no index yet (built in the background), and `serve --stdio`
 * runs the bundle (scripts/bundle.ts) and loads neither the HTTP stack, nor the client commands,
 * nor the audit sink (cold start). A module-resolve hook records every module the process loads.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, cleanEnv, GIT_ENV, runBin, startServer, tempDir } from "./helpers.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A resolve hook appending every resolved URL to $LOADED_LOG (runs in the hooks thread). */
const HOOK = `
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.LOADED_LOG, r.url + "\\n");
  return r;
}
`;
/**
 * Preload: registers the hook, and appends every child process the server starts to
 * $SPAWN_LOG as `<before|after> <file> <args>` — before or after its first stdout write (the
 * initialize answer).
 */
const REGISTER = (hookUrl: string) => `
import { appendFileSync } from "node:fs";
import { createRequire, register, syncBuiltinESMExports } from "node:module";
register(${JSON.stringify(hookUrl)});
const cp = createRequire(import.meta.url)("node:child_process");
let answered = false;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...a) => { answered = true; return write(...a); };
for (const name of ["execFile", "spawn", "execFileSync", "spawnSync", "exec", "fork"]) {
  const original = cp[name];
  cp[name] = function (file, args, ...rest) {
    const shown = Array.isArray(args) ? args.join(" ") : "";
    appendFileSync(process.env.SPAWN_LOG, (answered ? "after " : "before ") + file + " " + shown + "\\n");
    return original.call(this, file, args, ...rest);
  };
}
syncBuiltinESMExports();
`;

async function newKb(dir: string, concepts: number): Promise<string> {
  const root = join(dir, "notes");
  const made = await runBin(["kb", "create", "notes", "--data", dir], {
    cwd: dir,
    env: cleanEnv(GIT_ENV),
  });
  expect(made.code, made.stderr).toBe(0);
  for (let i = 0; i < concepts; i++)
    writeFileSync(
      join(root, "data", `c${i}.md`),
      `---\ntype: note\ntitle: Note ${i}\n---\nthe gateway number ${i}\n`,
    );
  return root;
}

describe("serve --stdio startup", () => {
  it("answers initialize, then a search, on a KB with no index; loads no HTTP, client or audit module", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const root = await newKb(dir, 40);
    const hook = join(dir, "hook.mjs");
    writeFileSync(hook, HOOK);
    const register = join(dir, "register.mjs");
    writeFileSync(register, REGISTER(pathToFileURL(hook).href));
    const log = join(dir, "loaded.log");
    writeFileSync(log, "");
    const spawns = join(dir, "spawns.log");
    writeFileSync(spawns, "");
    const proc = spawn(
      process.execPath,
      ["--import", pathToFileURL(register).href, BIN, "serve", "--stdio", "--kb", root],
      {
        cwd: dir,
        env: cleanEnv({ ...GIT_ENV, LOADED_LOG: log, SPAWN_LOG: spawns }),
        stdio: "pipe",
      },
    );
    const answers = new Map<number, Record<string, unknown>>();
    const waiters = new Map<number, () => void>();
    let buffer = "";
    let stderr = "";
    proc.stderr.on("data", (d) => {
      stderr += String(d);
    });
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        const m = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        answers.set(m.id, m);
        waiters.get(m.id)?.();
      }
    });
    const exited = new Promise<void>((r) => proc.once("exit", () => r()));
    const request = (id: number, method: string, params: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        waiters.set(id, () => resolve(answers.get(id) as Record<string, unknown>));
        proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      });
    try {
      const init = await request(1, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "e2e", version: "1" },
      });
      expect(init.result, stderr).toBeDefined();
      proc.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
      );
      const found = await request(2, "tools/call", {
        name: "search",
        arguments: { query: "gateway", limit: 50 },
      });
      const result = found.result as { content: Array<{ text: string }> };
      const body = JSON.parse(result.content[0]?.text ?? "{}");
      // 40 concepts build well inside the 2 s a search waits: the full answer.
      expect(body.results).toHaveLength(40);
      expect(stderr).toMatch(/index: building in the background/);
    } finally {
      proc.stdin.end();
      await exited;
    }
    // Remote sync's `git remote get-url` (per KB) waits until after the initialize answer.
    const started = readFileSync(spawns, "utf8").split("\n");
    expect(started.filter((l) => l.startsWith("before ") && l.includes(" remote "))).toEqual([]);
    expect(started.some((l) => l.startsWith("after ") && l.includes("remote get-url"))).toBe(true);
    const loaded = readFileSync(log, "utf8").split("\n");
    const ours = [...new Set(loaded.filter((u) => u.includes("/dist/")))];
    // The bin is the bundle (scripts/bundle.ts): a stub and a few chunks, not one file per module.
    expect(ours.some((u) => u.endsWith("/dist/bundle/main.js"))).toBe(true);
    expect(ours.filter((u) => !/\/dist\/(bundle\/|cli\/main\.js$)/.test(u))).toEqual([]);
    expect(ours.length).toBeLessThan(40);
    // Which code ran is told by what the loaded chunks define (esbuild keeps function names).
    const code = ours.map((u) => readFileSync(fileURLToPath(u), "utf8")).join("\n");
    expect(code).toMatch(/\bfunction serveStdio\(/);
    expect(code).not.toMatch(/\bfunction startHttpServer\(/);
    expect(code).not.toMatch(/\bfunction openAuditSink\(/);
    expect(code).not.toMatch(/\bfunction registerClientCommands\(/);
    expect(code).not.toMatch(/\bfunction registerAuditCommands\(/);
    expect(code).not.toMatch(/\bfunction registerTokenCommands\(/);
  });
});

describe("serve --http startup", () => {
  it("/health shows each KB's index state while it builds, then ready with done = total", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const root = await newKb(dir, 300);
    const server = await startServer(["--kb", root, "--http", "127.0.0.1:0"], { cwd: dir });
    try {
      const states: string[] = [];
      let kb: { index?: { state: string; done: number; total: number } } = {};
      for (let i = 0; i < 600; i++) {
        const health = await (await fetch(`${server.url}/health`)).json();
        kb = health.kbs[0];
        states.push(kb.index?.state ?? "none");
        if (kb.index?.state === "ready") break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(states.every((s) => ["queued", "building", "ready"].includes(s))).toBe(true);
      // 300 concepts plus data/index.md and log.md are not concepts: done = total = 300.
      expect(kb.index).toEqual({ state: "ready", done: 300, total: 300 });
    } finally {
      await server.stop();
    }
  });
});
