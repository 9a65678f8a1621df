/**
 * `cartographer agents [--json]` (Go's command of the same name): which agent tools look
 * installed on this machine — a binary on PATH or the tool's own folder in the home — and which
 * are connected (listed in `.cartographer.yaml`). Offline; reads nothing but the file system.
 */
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { loadConfig, PROVIDER_IDS, type ProviderId } from "../config.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_OK,
  reportFailure,
} from "../lib/io.js";
import { PROVIDERS } from "../provision/targets/index.js";

export interface AgentsOptions extends CommonOptions {
  json?: boolean;
}

export interface AgentRow {
  provider: ProviderId;
  name: string;
  installed: boolean;
  connected: boolean;
  /** The binary or folder that showed it installed; null when not installed. */
  evidence: string | null;
}

type Env = Record<string, string | undefined>;

function onPath(bin: string, env: Env): string | null {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, bin);
    try {
      if (statSync(file).isFile()) {
        accessSync(file, constants.X_OK);
        return file;
      }
    } catch {
      // not here
    }
  }
  return null;
}

function isDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

export function detectAgents(home: string, env: Env, connected: ReadonlySet<string>): AgentRow[] {
  return PROVIDER_IDS.map((provider) => {
    const probe = PROVIDERS[provider].probes;
    const evidence =
      probe.bins.map((b) => onPath(b, env)).find((f) => f !== null) ??
      probe.dirs(home, env).find(isDir) ??
      null;
    return {
      provider,
      name: PROVIDERS[provider].label,
      installed: evidence !== null,
      connected: connected.has(provider),
      evidence,
    };
  });
}

export async function agents(io: CommandIo, opts: AgentsOptions): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    const connected = new Set<string>(loaded.config.providers.map((p) => p.name));
    const rows = detectAgents(io.home, io.env, connected);
    if (opts.json) {
      io.stdout.write(
        `${JSON.stringify({ config: loaded.exists ? loaded.file : null, agents: rows })}\n`,
      );
      return EXIT_OK;
    }
    const line = (cells: string[]) =>
      `${cells.map((c, i) => (i < cells.length - 1 ? c.padEnd([12, 10, 10][i] ?? 0) : c)).join(" ")}\n`;
    io.stdout.write(line(["PROVIDER", "INSTALLED", "CONNECTED", "EVIDENCE"]));
    for (const r of rows)
      io.stdout.write(
        line([
          r.provider,
          r.installed ? "yes" : "no",
          r.connected ? "yes" : "no",
          r.evidence ?? "-",
        ]),
      );
    return EXIT_OK;
  } catch (err) {
    return reportFailure(io, err, opts.json);
  }
}
