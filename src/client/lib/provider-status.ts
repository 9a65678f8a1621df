/**
 * The checks status and doctor share: server facts since the last connect, every saved
 * binding's entries against a topology, and the one overall verdict.
 */
import type { ClientConfig } from "../config.js";
import type { ServerHealth } from "../health.js";
import { planProvider, type Topology } from "../provision/provider-plan.js";
import { checkProvider, type ProviderCheck } from "./check.js";
import type { CommandIo } from "./io.js";

/** The server shape as status names it: `routed (/mcp/routed)`, `per-kb`. */
export function shape(mode: string | undefined, routedPath: string | undefined): string {
  return mode === "routed" ? `routed (${routedPath ?? "?"})` : (mode ?? "unknown");
}

/** Topology changes and version changes since the last connect/sync, worded for the user. */
export function serverChanges(config: ClientConfig, health: ServerHealth): string[] {
  const out: string[] = [];
  const saved = config.server_mount_mode;
  if (
    saved !== undefined &&
    (saved !== health.mountMode ||
      (saved === "routed" && config.server_routed_path !== health.routedPath))
  ) {
    // D187: a mode switch changes the shape of every entry; status reports it, never heals it.
    const pathOnly = saved === health.mountMode;
    const from = pathOnly ? shape(saved, config.server_routed_path) : saved;
    const to = pathOnly ? shape(health.mountMode, health.routedPath) : health.mountMode;
    out.push(`mount mode changed: ${from} → ${to}; run cartographer reconnect`);
  }
  if (config.server_version !== undefined && config.server_version !== health.version) {
    out.push(
      `server version changed: ${config.server_version} → ${health.version}; run cartographer sync`,
    );
  }
  return out;
}

/** Runs the per-provider checks of every saved binding against a topology. */
export async function checkAll(
  config: ClientConfig,
  topology: Topology,
  io: CommandIo,
): Promise<ProviderCheck[]> {
  const checks: ProviderCheck[] = [];
  for (const binding of config.providers) {
    checks.push(await checkProvider(planProvider(config, binding, topology, io, false), config));
  }
  return checks;
}

/**
 * The overall state and its last line: drift (files or server facts differ: sync/reconnect
 * heals it) wins over blocked (files match, but the agent tools cannot use them: token unset
 * or refused, Codex project untrusted).
 */
export function overall(
  drift: boolean,
  blockers: string[],
): { state: "in-sync" | "drift" | "blocked"; line: string } {
  if (drift)
    return { state: "drift", line: "drift: run cartographer sync (or reconnect, as noted)" };
  if (blockers.length > 0) {
    return {
      state: "blocked",
      line: "the files are in sync, but the agent tools cannot use them yet: see above",
    };
  }
  return { state: "in-sync", line: "in sync" };
}

/** Prints each blocker; a multi-line one (a TOML snippet) keeps its lines, indented. */
export function printBlockers(io: CommandIo, blockers: string[]): void {
  for (const b of blockers) io.stdout.write(`not usable: ${b.replace(/\n/g, "\n    ")}\n`);
}
