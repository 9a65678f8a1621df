/**
 * `cartographer dashboard` once the CLI has decided the terminal can take it (a TTY on stdin
 * and stdout; otherwise it prints `status`, docs/decisions.md "Dashboard"): draws the dashboard
 * with Ink until `q` or Ctrl-C, redrawing at the new width when the terminal is resized.
 */
import { render } from "ink";
import { createElement as h } from "react";
import { VERSION } from "../../version.js";
import type { CommandIo } from "../lib/io.js";
import { DashboardApp } from "./app.js";
import { dashboardDeps } from "./controller.js";
import { palette } from "./layout.js";

export interface DashboardRunOptions {
  /** `--config`: the client yaml. */
  config?: string;
  /** False under NO_COLOR: the screen is drawn without colour. */
  colour: boolean;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  refreshMs?: number;
  tailMs?: number;
}

/** Draws the dashboard until the person quits; returns the exit code (0). */
export async function runDashboard(io: CommandIo, opts: DashboardRunOptions): Promise<number> {
  const deps = dashboardDeps(io, opts.config);
  const element = () =>
    h(DashboardApp, {
      deps,
      columns: opts.stdout.columns || 80,
      paint: palette(opts.colour),
      home: io.home,
      client: VERSION,
      ...(opts.refreshMs !== undefined ? { refreshMs: opts.refreshMs } : {}),
      ...(opts.tailMs !== undefined ? { tailMs: opts.tailMs } : {}),
    });
  const instance = render(element(), {
    stdin: opts.stdin,
    stdout: opts.stdout,
    exitOnCtrlC: true,
    // Nothing below may write to the screen behind Ink's back: the commands' output is captured.
    patchConsole: false,
  });
  // A narrower terminal re-wraps the old frame's lines, which Ink then cannot erase line by
  // line: the screen is cleared and drawn again at the new width.
  const onResize = () => {
    opts.stdout.write("\x1b[2J\x1b[3J\x1b[H");
    instance.rerender(element());
  };
  opts.stdout.on("resize", onResize);
  try {
    await instance.waitUntilExit();
  } finally {
    opts.stdout.off("resize", onResize);
  }
  return 0;
}
