/**
 * The commander program. Each command lives in commands/<name>.ts and receives parsed options
 * plus the CliIo; this file only declares the command line.
 */
import { Command, CommanderError } from "commander";
import { isKbError, isSettingError } from "../kb/errors.js";
import { VERSION } from "../version.js";
import { registerAuditCommands } from "./commands/audit.js";
import { registerClientCommands } from "./commands/client.js";
import { registerKbCommands } from "./commands/kb.js";
import { registerReindexCommand } from "./commands/reindex.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerTokenCommands } from "./commands/token.js";
import { CliExit, type CliIo, EXIT_USAGE } from "./io.js";

export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command("cartographer")
    .description(
      "MCP server for git-backed Markdown knowledge bases, and the client that connects agent tools to it",
    )
    .version(VERSION, "-V, --version")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  const ctx = { io, setExit };
  registerServeCommand(program, ctx);
  registerKbCommands(program, ctx);
  registerReindexCommand(program, ctx);
  registerTokenCommands(program, ctx);
  registerAuditCommands(program, ctx);
  registerClientCommands(program, ctx);
  return program;
}

export interface CommandContext {
  io: CliIo;
  setExit: (code: number) => void;
}

/** Runs the CLI; returns the exit code. Errors become one stderr line and exit 2 (bad input) or 1. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are successful exits; parse errors were already printed by commander.
      return err.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    if (err instanceof CliExit) {
      if (err.message) io.stderr.write(`cartographer: ${err.message}\n`);
      return err.exitCode;
    }
    if (isSettingError(err)) {
      io.stderr.write(`cartographer: ${err.code}: ${err.message}\n`);
      return EXIT_USAGE;
    }
    if (isKbError(err)) {
      io.stderr.write(`cartographer: ${err.code}: ${err.message}\n`);
      return err.code === "internal" || err.code === "git_failed" ? 1 : EXIT_USAGE;
    }
    io.stderr.write(`cartographer: ${(err as Error).message ?? String(err)}\n`);
    return 1;
  }
}
