/**
 * Drives the official MCP conformance suite (@modelcontextprotocol/conformance, pinned 0.1.13:
 * the newest release that runs on Node 20) and the MCP Inspector CLI against a real, built
 * `cartographer serve` on 127.0.0.1. Both are plain MCP clients; nothing here is downloaded at
 * run time.
 */
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { cleanEnv, GIT_ENV, type RunningServer, startServer, tempDir } from "../e2e/helpers.js";

const execFileP = promisify(execFile);
const MODULES = resolve(import.meta.dirname, "../../node_modules/@modelcontextprotocol");
export const CONFORMANCE_BIN = join(MODULES, "conformance/dist/index.js");
/** The Inspector's CLI-mode entry (`--cli` of the launcher runs this same file). */
export const INSPECTOR_DIR = join(MODULES, "inspector-cli/build");

export interface Served {
  server: RunningServer;
  /** Base URL, e.g. http://127.0.0.1:40309 */
  url: string;
  /** The served KB's folder (fixtures are written into it). */
  kbDir: string;
  stop: () => Promise<void>;
}

/** `cartographer serve --http 127.0.0.1:0 --kb <tmp>/kb --init` (auth off: loopback). */
export async function serveTempKb(): Promise<Served> {
  const tmp = tempDir("carto-conf-");
  const server = await startServer(
    ["--http", "127.0.0.1:0", "--kb", join(tmp.dir, "kb"), "--init"],
    { cwd: tmp.dir, env: cleanEnv(GIT_ENV) },
  );
  return {
    server,
    url: server.url,
    kbDir: join(tmp.dir, "kb"),
    stop: async () => {
      await server.stop();
      tmp.cleanup();
    },
  };
}

export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  errorMessage?: string;
  details?: Record<string, unknown>;
}

export interface ScenarioRun {
  code: number;
  checks: Check[];
  output: string;
}

/** Runs one server scenario of the suite against `mcpUrl` and returns its checks (--verbose). */
export async function runScenario(mcpUrl: string, scenario: string): Promise<ScenarioRun> {
  const tmp = tempDir("carto-conf-run-");
  let code = 0;
  let output = "";
  try {
    const r = await execFileP(
      process.execPath,
      [CONFORMANCE_BIN, "server", "--url", mcpUrl, "--scenario", scenario, "--verbose"],
      { cwd: tmp.dir, env: cleanEnv(), timeout: 60_000 },
    );
    output = r.stdout + r.stderr;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    code = typeof e.code === "number" ? e.code : 1;
    output = (e.stdout ?? "") + (e.stderr ?? "");
  } finally {
    tmp.cleanup();
  }
  const start = output.indexOf("\n[");
  const end = output.indexOf("\n]", start);
  const checks =
    start >= 0 && end > start ? (JSON.parse(output.slice(start + 1, end + 2)) as Check[]) : [];
  return { code, checks, output };
}

export interface InspectorRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `inspector-cli --transport http <url> --method … [--tool-name … --tool-arg k=v …]`. The cwd is the package's
 * build dir because inspector-cli 1.0.3 probes `../package.json` relative to the cwd but imports
 * it relative to its module (it fails with "Cannot find module …/package.json" elsewhere).
 * `--transport http` is explicit: the CLI guesses SSE for URLs not ending in `/mcp`.
 */
export async function inspector(args: string[]): Promise<InspectorRun> {
  try {
    const r = await execFileP(
      process.execPath,
      [join(INSPECTOR_DIR, "index.js"), "--transport", "http", ...args],
      {
        cwd: INSPECTOR_DIR,
        env: cleanEnv(),
        timeout: 60_000,
      },
    );
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    };
  }
}
