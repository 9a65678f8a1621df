/**
 * The dashboard's I/O: the status snapshot, the live tail and the actions. Actions run the very
 * command functions `connect`, `sync` and `disconnect` run, with their output captured (it would
 * tear the drawn screen) and summed up in one status line.
 */
import { connect } from "../commands/connect.js";
import { disconnect } from "../commands/disconnect.js";
import { sync } from "../commands/sync.js";
import { loadConfig } from "../config.js";
import { type CommandIo, configPath } from "../lib/io.js";
import { type StatusSnapshot, statusSnapshot } from "../lib/status-snapshot.js";
import { boundKbs, recentChanges } from "./changes.js";
import type { ChangeRow, DashboardAction } from "./state.js";

/** What the dashboard needs from the world; the component tests hand in their own. */
export interface DashboardDeps {
  snapshot(): Promise<StatusSnapshot>;
  /** Recent changes of the KBs the snapshot's providers are bound to. */
  changes(snapshot: StatusSnapshot): Promise<ChangeRow[]>;
  run(action: DashboardAction): Promise<{ text: string; ok: boolean }>;
}

/** A CommandIo whose output is kept, not written: the screen is Ink's. */
function capturingIo(io: CommandIo): { io: CommandIo; lines: () => string[] } {
  let out = "";
  const sink = {
    write(chunk: string) {
      out += chunk;
      return true;
    },
  };
  return {
    io: { ...io, stdout: sink, stderr: sink },
    lines: () =>
      out
        .split("\n")
        .map((l) => l.replace(/^cartographer (error|warn|note|info): /, "").trim())
        .filter((l) => l !== ""),
  };
}

function verb(action: DashboardAction): string {
  switch (action.kind) {
    case "connect":
      return `connected ${action.provider}`;
    case "sync":
      return `synced ${action.provider}`;
    case "sync-all":
      return "synced every connected provider";
    case "disconnect":
      return `disconnected ${action.provider}`;
  }
}

/** The status line after a command: done, or its exit code and the last thing it said. */
export function summarize(action: DashboardAction, code: number, lines: string[]): string {
  if (code === 0) return verb(action);
  const what = action.kind === "sync-all" ? "sync" : `${action.kind} ${action.provider}`;
  const said = lines.at(-1);
  const why = code === 1 ? "left something to look at" : "failed";
  return `${what} ${why} (exit ${code})${said ? `: ${said}` : ""}`;
}

/** The real dependencies over the client commands; `config` is `--config` as given. */
export function dashboardDeps(io: CommandIo, config: string | undefined): DashboardDeps {
  const common = config ? { config } : {};
  return {
    snapshot: async () => statusSnapshot(io, await loadConfig(configPath(io, common))),
    changes: (snapshot) => recentChanges(io, snapshot, boundKbs(snapshot)),
    async run(action) {
      const captured = capturingIo(io);
      let code: number;
      switch (action.kind) {
        case "connect":
        case "sync":
          // Connect on a connected provider re-applies its saved binding: a sync of that one.
          code = await connect(captured.io, { ...common, providers: [action.provider] });
          break;
        case "sync-all":
          code = await sync(captured.io, common);
          break;
        case "disconnect":
          code = await disconnect(captured.io, { ...common, providers: [action.provider] });
          break;
      }
      return { text: summarize(action, code, captured.lines()), ok: code === 0 };
    },
  };
}
