import path from "node:path";
import type { Logger } from "../../logger.js";
import { defaultConfigPath } from "../config.js";
import { ClientError } from "../errors.js";
import type { FetchFn } from "../health.js";

/** What every command receives from the CLI: nothing below src/cli reads process.env. */
export interface CommandIo {
  home: string;
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  fetch?: FetchFn;
}

/** Options every command accepts. */
export interface CommonOptions {
  /** Path of the client yaml (`--config`); default `$HOME/.cartographer.yaml`. */
  config?: string;
}

export const EXIT_OK = 0;
export const EXIT_DRIFT = 1;
export const EXIT_ERROR = 2;

export function configPath(io: CommandIo, opts: CommonOptions): string {
  return opts.config ? path.resolve(io.cwd, opts.config) : defaultConfigPath(io.home);
}

export function loggerFor(io: CommandIo): Logger {
  const line = (level: string, m: string) => io.stderr.write(`cartographer ${level}: ${m}\n`);
  return {
    info: (m) => line("info", m),
    warn: (m) => line("warn", m),
    error: (m) => line("error", m),
  };
}

/** Reports a failure on stderr, naming its kind; returns the error exit code. */
export function reportError(io: CommandIo, err: unknown): number {
  if (err instanceof ClientError) {
    io.stderr.write(`cartographer error: ${err.message}\n`);
  } else {
    io.stderr.write(`cartographer error: ${(err as Error)?.message ?? String(err)}\n`);
  }
  return EXIT_ERROR;
}

/**
 * Reports a failure: with `json`, one `{state: "error", error: {kind, message}}` object on
 * stdout (so a script always gets JSON); otherwise a line on stderr. Returns the error exit code.
 */
export function reportFailure(io: CommandIo, err: unknown, json: boolean | undefined): number {
  if (!json) return reportError(io, err);
  const error =
    err instanceof ClientError
      ? { kind: err.kind, message: err.message }
      : { kind: "internal", message: (err as Error)?.message ?? String(err) };
  io.stdout.write(`${JSON.stringify({ state: "error", error })}\n`);
  return EXIT_ERROR;
}

/** Shortens a path under $HOME to ~/… for messages. */
export function tilde(io: CommandIo, file: string): string {
  return file.startsWith(io.home + path.sep) ? `~${file.slice(io.home.length)}` : file;
}
