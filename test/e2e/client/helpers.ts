/**
 * The client against the REAL server: the built binary (dist/cli/main.js) serves KBs made with
 * `cartographer kb create`, and every client command runs through the same binary with a
 * sandbox $HOME. Run `npm run build` first.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import {
  type CliResult,
  cleanEnv,
  GIT_ENV,
  type RunningServer,
  runBin,
  startServer,
  tempDir,
} from "../helpers.js";

export const ADMIN_TOKEN = "admin-token-e2e-0123456789abcdef";
export const READER_B_TOKEN = "reader-b-token-e2e-0123456789abcdef";

export interface Sandbox {
  /** Holds kbs/ and the server config. */
  dir: string;
  /** The sandbox $HOME handed to the CLI. */
  home: string;
  /** Runs `cartographer <args>` with HOME=home, cwd=home, CARTO_TOKEN set to `token`. */
  cli(args: string[], token?: string): Promise<CliResult>;
  read(rel: string): string;
  readJson(rel: string): Record<string, unknown>;
  write(rel: string, text: string): void;
  cleanup(): void;
}

/** Runs `cartographer <args>` (the built binary) with HOME=home, a clean environment plus `env`. */
export function cli(home: string, args: string[], cwd = home, env: Record<string, string> = {}) {
  return runBin(args, { cwd, env: cleanEnv({ ...GIT_ENV, HOME: home, ...env }) });
}

export function sandbox(): Sandbox {
  const t = tempDir("carto-client-e2e-");
  const home = join(t.dir, "home");
  mkdirSync(home);
  return {
    dir: t.dir,
    home,
    cli: (args, token) => cli(home, args, home, token ? { CARTO_TOKEN: token } : {}),
    read: (rel) => readFileSync(join(home, rel), "utf8"),
    readJson: (rel) => JSON.parse(readFileSync(join(home, rel), "utf8")),
    write: (rel, text) => {
      mkdirSync(dirname(join(home, rel)), { recursive: true });
      writeFileSync(join(home, rel), text);
    },
    cleanup: t.cleanup,
  };
}

/** Creates KBs under <dir>/kbs; `instructions` maps a KB to its KB-root instructions.md. */
export async function makeKbs(
  dir: string,
  names: string[],
  instructions: Record<string, string> = {},
): Promise<void> {
  for (const name of names) {
    const res = await runBin(["kb", "create", name, "--data", "kbs"], {
      cwd: dir,
      env: cleanEnv(GIT_ENV),
    });
    if (res.code !== 0) throw new Error(`kb create ${name} failed: ${res.stderr}`);
    const text = instructions[name];
    if (text !== undefined) writeFileSync(join(dir, "kbs", name, "instructions.md"), text);
  }
}

/**
 * Serves <dir>/kbs over HTTP on `port` (0 = any). With `auth`, two tokens: an admin one and
 * one that may only read KB b (scope kb:b:r).
 */
export async function serveKbs(
  dir: string,
  opts: { auth?: boolean; port?: number } = {},
): Promise<RunningServer> {
  const auth = opts.auth
    ? [
        "auth:",
        "  tokens:",
        `    - { token: "${ADMIN_TOKEN}", id: admin }`,
        `    - { token: "${READER_B_TOKEN}", id: reader-b, scopes: ["kb:b:r"] }`,
      ]
    : [];
  writeFileSync(join(dir, "server.yaml"), [`data: kbs`, ...auth, ""].join("\n"));
  return startServer(["--config", "server.yaml", "--http", `127.0.0.1:${opts.port ?? 0}`], {
    cwd: dir,
    env: cleanEnv(GIT_ENV),
  });
}

export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/**
 * An older, per-KB server as far as the client can tell: /health lists the KBs without
 * mount_mode/routed_path; everything else is 404.
 */
export async function startPerKbHealthServer(
  port: number,
  kbs: string[],
  version = "0.0.9",
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === "/health") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ status: "ok", version, ready: true, kbs: kbs.map((name) => ({ name })) }),
      );
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The part of a markdown file between our BEGIN and END markers (inclusive), or undefined. */
export function managedBlock(text: string, provider: string, server = "cartographer") {
  const begin = text.indexOf(`<!-- BEGIN cartographer:${server} (${provider})`);
  const endMarker = `<!-- END cartographer:${server} (${provider}) -->`;
  const end = text.indexOf(endMarker);
  return begin >= 0 && end > begin ? text.slice(begin, end + endMarker.length) : undefined;
}
