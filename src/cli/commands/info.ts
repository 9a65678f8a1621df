/** `cartographer version` and `cartographer agents`: the names Go's CLI has for them. */
import type { Command } from "commander";
import { agents } from "../../client/commands/agents.js";
import { VERSION } from "../../version.js";
import type { CommandContext } from "../command-context.js";
import { CliExit, EXIT_USAGE } from "../io.js";
import { CONFIG_HELP, clientIo } from "./client.js";

export function registerInfoCommands(program: Command, { io, setExit }: CommandContext): void {
  program
    .command("version")
    .description("print the version (as --version)")
    .action(() => {
      io.stdout.write(`${VERSION}\n`);
    });
  program
    .command("agents")
    .description(
      "list the agent tools found on this machine (a binary on PATH or their folder) and whether each is connected",
    )
    .option("--config <file>", CONFIG_HELP)
    .option("--json", "print JSON")
    .option("--output <format>", "table (default) or json, as Go's --output")
    .action(async (opts: { config?: string; json?: boolean; output?: string }) => {
      if (opts.output !== undefined && opts.output !== "table" && opts.output !== "json")
        throw new CliExit(
          EXIT_USAGE,
          `--output: '${opts.output}' is not a format; use table or json`,
        );
      const json = opts.json === true || opts.output === "json";
      setExit(
        await agents(clientIo(io), { ...(opts.config ? { config: opts.config } : {}), json }),
      );
    });
}
