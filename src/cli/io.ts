/** What a CLI command may touch of the process, passed in so commands are testable. */
export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
}

/** Exit code for bad input (usage, config, arguments). */
export const EXIT_USAGE = 2;

/** Thrown by commands to end with a message on stderr and an exit code. */
export class CliExit extends Error {
  constructor(
    readonly exitCode: number,
    message = "",
  ) {
    super(message);
    this.name = "CliExit";
  }
}
