/**
 * The commander program. Each command lives in commands/<name>.ts and receives parsed options
 * plus the CliIo; this file only declares the command line.
 */
import { Command, CommanderError } from "commander";
import { isKbError, isSettingError } from "../common/errors.js";
import { VERSION } from "../version.js";
import type { RegisterCommands } from "./command-context.js";
import { CliExit, type CliIo, EXIT_USAGE } from "./io.js";
import { unknownCommandHint } from "./unknown-command.js";

/**
 * Command modules by the top-level command names they register, imported only when needed:
 * `serve --stdio` loads neither the client stack nor the audit tools, for a fast cold start
 * (docs/decisions.md "The CLI imports a command's module only when that command runs"). Help,
 * version and an unknown command load them all.
 */
const COMMAND_MODULES: ReadonlyArray<
  readonly [readonly string[], () => Promise<RegisterCommands>]
> = [
  [["serve"], async () => (await import("./commands/serve.js")).registerServeCommand],
  [["kb"], async () => (await import("./commands/kb.js")).registerKbCommands],
  [["reindex"], async () => (await import("./commands/reindex.js")).registerReindexCommand],
  [["import"], async () => (await import("./commands/import.js")).registerImportCommand],
  [["token"], async () => (await import("./commands/token.js")).registerTokenCommands],
  [["audit"], async () => (await import("./commands/audit.js")).registerAuditCommands],
  [["version", "agents"], async () => (await import("./commands/info.js")).registerInfoCommands],
  [
    ["search", "read", "list", "log"],
    async () => (await import("./commands/reads.js")).registerReadCommands,
  ],
  [["service"], async () => (await import("./commands/service.js")).registerServiceCommands],
  [
    [
      "connect",
      "sync",
      "status",
      "doctor",
      "reconnect",
      "disconnect",
      "trust",
      "approve",
      "revoke",
      "resolve",
      "upgrade-repair",
    ],
    async () => (await import("./commands/client.js")).registerClientCommands,
  ],
  [["dashboard"], async () => (await import("./commands/dashboard.js")).registerDashboardCommand],
];

export async function buildProgram(
  io: CliIo,
  setExit: (code: number) => void,
  argv: readonly string[] = [],
): Promise<Command> {
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
  const first = argv[0];
  const only = COMMAND_MODULES.find(([names]) => first !== undefined && names.includes(first));
  // Registration order is the order `--help` lists the commands in.
  const chosen = only ? [only] : COMMAND_MODULES;
  const registers = await Promise.all(chosen.map(([, load]) => load()));
  for (const register of registers) register(program, ctx);
  // Top-level "did you mean" is ours, within two edits as Go's CLI (unknown-command.ts); set after
  // registration so subcommands keep commander's suggestions for their own words and options.
  program.showSuggestionAfterError(false);
  return program;
}

/** Runs the CLI; returns the exit code. Errors become one stderr line and exit 2 (bad input) or 1. */
export async function runCli(given: string[], io: CliIo): Promise<number> {
  // No arguments: the dashboard (it prints status when not in a terminal).
  const argv = given.length === 0 ? ["dashboard"] : given;
  let exitCode = 0;
  const program = await buildProgram(
    io,
    (code) => {
      exitCode = code;
    },
    argv,
  );
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.unknownCommand")
        io.stderr.write(unknownCommandHint(program, argv));
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
