/**
 * `cartographer dashboard` (and `cartographer` alone): the terminal dashboard when stdin and
 * stdout are terminals, else `status` printed (docs/decisions.md "Dashboard"). Ink and React load
 * only when the dashboard is drawn.
 */
import type { Command } from "commander";
import { status } from "../../client/commands/status.js";
import type { CommandContext } from "../command-context.js";
import { CONFIG_HELP, clientIo } from "./client.js";

export function registerDashboardCommand(program: Command, { io, setExit }: CommandContext): void {
  program
    .command("dashboard")
    .description(
      "the terminal dashboard: server, providers, recent changes; connect, sync, disconnect (also `cartographer` alone); prints status when not in a terminal",
    )
    .option("--config <file>", CONFIG_HELP)
    .action(async (opts: { config?: string }) => {
      const stdin = io.stdin as NodeJS.ReadStream;
      const stdout = io.stdout as NodeJS.WriteStream;
      if (!stdout.isTTY || !stdin.isTTY) {
        setExit(await status(clientIo(io), opts));
        return;
      }
      const { runDashboard } = await import("../../client/dashboard/run.js");
      // NO_COLOR (no-color.org): any non-empty value turns colour off, nothing else.
      const colour = (io.env.NO_COLOR ?? "") === "";
      setExit(
        await runDashboard(clientIo(io), {
          ...(opts.config ? { config: opts.config } : {}),
          colour,
          stdin,
          stdout,
        }),
      );
    });
}
