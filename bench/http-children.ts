/**
 * HTTP servers in their own processes for section `one-pass`: the built binary
 * (`serve --kb <root> --http 127.0.0.1:<port>`, auth off on loopback) and the bare SDK read
 * server (bare-read-http-server.mjs). Each runs on its own event loop, apart from the load
 * generator (a worker thread of the bench process), so both are measured the same way.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BIN, cleanEnv } from "./stdio.js";

const BARE_READ_HTTP = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "bare-read-http-server.mjs",
);

export interface HttpChild {
  /** Base URL, `http://127.0.0.1:<port>` (the MCP endpoint is `${base}/mcp`). */
  base: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill("SIGTERM");
    });
}

/**
 * The built binary serving `root` over HTTP; resolves once /health answers 200. `env` is added
 * to the clean environment (section `metrics` turns metrics on with it).
 */
export async function startBuiltHttp(
  root: string,
  cwd: string,
  env: Record<string, string> = {},
): Promise<HttpChild> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [BIN, "serve", "--kb", root, "--http", `127.0.0.1:${port}`],
    { cwd, env: { ...cleanEnv(), ...env }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr = (stderr + String(d)).slice(-4000);
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 120_000;
  while ((await status(`${base}/health`)) !== 200) {
    if (child.exitCode !== null || performance.now() > deadline)
      throw new Error(`built server did not start on ${base}; stderr:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { base, stop: stopper(child) };
}

/** The bare SDK read server over `root`; resolves once it listens. */
export function startBareReadHttp(root: string): Promise<HttpChild> {
  const child = spawn(process.execPath, [BARE_READ_HTTP, root], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.once("exit", (code) => reject(new Error(`bare read server exited early (${code})`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (!out.includes("\n")) return;
      child.removeAllListeners("exit");
      const url = (JSON.parse(out.split("\n")[0] as string) as { url: string }).url;
      resolve({ base: url.replace(/\/mcp$/, ""), stop: stopper(child) });
    });
  });
}
