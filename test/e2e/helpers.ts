/** Drives the BUILT binary (dist/cli/main.js): `npm test` builds first. */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { tempDir as makeTempDir, type TempDir } from "../support/temp-dir.js";

export const BIN = resolve(import.meta.dirname, "../../dist/cli/main.js");
const execFileP = promisify(execFile);

export const GIT_ENV = {
  GIT_AUTHOR_NAME: "e2e",
  GIT_AUTHOR_EMAIL: "e2e@localhost",
  GIT_COMMITTER_NAME: "e2e",
  GIT_COMMITTER_EMAIL: "e2e@localhost",
};

/** The suites' one temp-dir helper (test/support/temp-dir.ts), with the e2e prefix. */
export function tempDir(prefix = "carto-e2e-"): TempDir {
  return makeTempDir(prefix);
}

/** An environment without any CARTOGRAPHER_* variable of the developer's shell. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("CARTOGRAPHER_")) env[k] = v;
  return { ...env, ...extra };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runBin(
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: opts.env ?? cleanEnv(),
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    };
  }
}

export interface RunningServer {
  url: string;
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/** Starts `cartographer serve …` and waits for its `listening on http://…` line. */
export async function startServer(
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<RunningServer> {
  const proc = spawn(process.execPath, [BIN, "serve", ...args], {
    cwd: opts.cwd,
    env: opts.env ?? cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  proc.stdout?.on("data", (d) => {
    out += d;
  });
  proc.stderr?.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((res) => proc.on("exit", (code) => res(code)));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`server did not start in time; stderr:\n${err}`)),
      30_000,
    );
    const check = () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out + err);
      if (m) {
        clearTimeout(timer);
        res((m[1] as string).replace(/\/$/, ""));
      }
    };
    proc.stdout?.on("data", check);
    proc.stderr?.on("data", check);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`server exited with ${code} before listening; stderr:\n${err}`));
    });
  });
  return {
    url,
    proc,
    stdout: () => out,
    stderr: () => err,
    stop: async (signal = "SIGTERM") => {
      if (proc.exitCode === null) proc.kill(signal);
      return exited;
    },
  };
}
