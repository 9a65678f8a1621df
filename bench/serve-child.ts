/**
 * A Cartographer HTTP server over one KB in its own process, for the figures that need the
 * server apart from the load (its event loop and its RSS): `node --import tsx serve-child.ts
 * <kb root>` prints `{"url": …}` once listening and stops on SIGTERM. Started by spawnServer().
 * The server's `console: ` lines (e.g. the end of the console's render-ahead pass) follow on
 * stdout as `{"log": …}`; `waitForLog` waits for one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);

export interface ChildServer {
  url: string;
  pid: number;
  /** Resident set size and its peak (VmRSS, VmHWM), in MiB, read from /proc. */
  memory(): { rssMiB: number; peakMiB: number };
  /** The first `console: ` log line matching `pattern` (already printed or still to come). */
  waitForLog(pattern: RegExp, timeoutMs: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Spawns this file as a server over `root`; resolves once it listens. `readers` > 0 turns auth
 * on with that many read-only tokens `bench-reader-<i>` (`kb:<name>:r`), for per-token figures.
 */
export function spawnServer(root: string, readers = 0): Promise<ChildServer> {
  const child = spawn(process.execPath, ["--import", "tsx", SELF, root, String(readers)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let started = false;
    const logs: string[] = [];
    child.once("exit", (code) => reject(new Error(`bench server exited early (${code})`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      let nl = out.indexOf("\n");
      while (nl >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        nl = out.indexOf("\n");
        if (line === "") continue;
        const msg = JSON.parse(line) as { url?: string; log?: string };
        if (msg.log !== undefined) logs.push(msg.log);
        else if (!started && msg.url !== undefined) {
          started = true;
          child.removeAllListeners("exit");
          resolve(handle(child, msg.url, logs));
        }
      }
    });
  });
}

function handle(child: ChildProcess, url: string, logs: readonly string[]): ChildServer {
  return {
    url,
    pid: child.pid as number,
    async waitForLog(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logs.find((l) => pattern.test(l));
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`no server log line matching ${pattern}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    memory() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
      return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function main(root: string, readers: number): Promise<void> {
  const { silentLogger } = await import("../src/logger.js");
  const { mountKb } = await import("../src/runtime/mount.js");
  const { createCartographer } = await import("../src/mcp/app.js");
  const { startHttpServer } = await import("../src/http/server.js");
  const identity = { name: "bench", email: "bench@cartographer.invalid" };
  const settings = { name: path.basename(root), root, allowArtifactWrite: false, autocommit: true };
  const mount = await mountKb({ ...settings, gitAuthor: identity }, { logger: silentLogger });
  // The console's lines reach the parent (waitForLog); everything else stays quiet.
  const logger = {
    ...silentLogger,
    info: (m: string) => {
      if (m.startsWith("console: ")) process.stdout.write(`${JSON.stringify({ log: m })}\n`);
    },
  };
  const app = await createCartographer({ mounts: [mount], logger });
  const auth = readers > 0 ? { tokens: await readerTokens(settings.name, readers) } : undefined;
  const server = await startHttpServer({
    app,
    port: 0,
    version: "bench",
    ...(auth ? { auth } : {}),
  });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  process.once("SIGTERM", () => {
    void (async () => {
      await server.close();
      await app.close();
      process.exit(0);
    })();
  });
}

/** Read-only tokens `bench-reader-<i>` on KB `kb`. */
async function readerTokens(kb: string, n: number) {
  const { TokenStore, tokenDigest } = await import("../src/auth/tokens.js");
  return new TokenStore(
    Array.from({ length: n }, (_, i) => ({
      digest: tokenDigest(`bench-reader-${i}`),
      principal: {
        id: `reader-${i}`,
        policy: {
          admin: false,
          rules: [{ kb, access: "r" as const, maps: [], journals: [], types: [] }],
        },
      },
    })),
  );
}

if (process.argv[1] === SELF) {
  main(process.argv[2] as string, Number(process.argv[3] ?? 0)).catch((err) => {
    process.stderr.write(`bench server: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
