/**
 * Runs `systemctl --user` / `launchctl` for the service manager: execFile, no shell (paths go
 * as arguments, never through a command line), bounded by a timeout. Injected, so tests see
 * the exact command lines without running them.
 */
import { execFile } from "node:child_process";

export interface RunResult {
  /** The exit code; -1 when the program could not start or was killed at the timeout. */
  code: number;
  stdout: string;
  stderr: string;
}

export type Runner = (program: string, args: readonly string[]) => Promise<RunResult>;

export function execRunner(timeoutMs = 30_000): Runner {
  return (program, args) =>
    new Promise((resolve) => {
      execFile(
        program,
        [...args],
        { timeout: timeoutMs, encoding: "utf8" },
        (err, stdout, stderr) => {
          if (!err) return resolve({ code: 0, stdout, stderr });
          const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
          const why =
            e.code === "ENOENT"
              ? `${program} is not installed or not on PATH`
              : e.killed
                ? `${program} did not finish within ${timeoutMs / 1000} s`
                : "";
          resolve({
            code: typeof e.code === "number" ? e.code : -1,
            stdout,
            stderr: why || stderr,
          });
        },
      );
    });
}

/** A failed run as one line: the command and what it said. */
export function runFailure(program: string, args: readonly string[], result: RunResult): Error {
  const said = (result.stderr || result.stdout).trim().split("\n")[0] ?? "";
  return new Error(
    `${program} ${args.join(" ")} failed (exit ${result.code})${said ? `: ${said}` : ""}`,
  );
}
