/**
 * One agent tool, everything provider-specific in one record (targets/<provider>.ts, listed in
 * targets/index.ts): where its MCP file and instructions file are, how the cartographer entry
 * is written there, how it names tools, and how its artifacts are laid out (ProvisionTarget).
 */
import type { ProviderId, Scope } from "../../config.js";
import type { EntrySpec } from "../../topology.js";
import type { ProvisionTarget } from "../types.js";

/** How an entry authenticates: by env var reference (preferred) or, opt-in, a literal token. */
export interface AuthRef {
  /** Name of the env var holding the bearer token. */
  tokenEnv?: string;
  /** Only for providers that cannot reference env vars, and only on explicit request. */
  literalToken?: string;
}

export interface ProviderFiles {
  /** The MCP configuration file. */
  config: string;
  /** The file that receives the managed instructions block. */
  instructions: string;
  /**
   * Where older versions of the provider (and of this client) kept the MCP file: connect and
   * disconnect remove our entries there, so a location change leaves no orphan behind.
   */
  legacyConfigs?: string[];
}

/** One agent tool whose MCP configuration the client writes. One file per provider. */
export interface ProviderAdapter {
  id: ProviderId;
  label: string;
  /** Whether the config file can reference an env var for the token (else see AuthRef). */
  referencesEnv: boolean;
  /**
   * Files for a scope; throws ConfigError when the provider has no file at that scope. `env` is
   * the environment the CLI passed in (Codex moves its user files to `$CODEX_HOME`).
   */
  paths(
    scope: Scope,
    home: string,
    cwd: string,
    env?: Record<string, string | undefined>,
  ): ProviderFiles;
  /** Entries in the file, name → URL (undefined when the entry has no URL). */
  listEntries(text: string | null, file: string): Map<string, string | undefined>;
  /** The new file text: `remove` names gone, `add` entries written, everything else kept. */
  applyEntries(
    text: string | null,
    file: string,
    remove: string[],
    add: EntrySpec[],
    auth: AuthRef,
  ): string;
  /** Whether the file holds `entry` as this client would write it. */
  entryMatches(text: string | null, file: string, entry: EntrySpec, auth: AuthRef): boolean;
  /** File mode to force on write (0600 when a literal token is written), else keep. */
  fileMode(auth: AuthRef): number | undefined;
}

/** An agent tool: its connect adapter, its provisioning layout, and the facts around them. */
export interface Provider extends ProviderAdapter, ProvisionTarget {
  /** The tool namespace is flat: N per-KB entries expose the same tool names (D102). */
  flatNamespace: boolean;
  /** The name the flat-namespace warning uses, when it is not `label` (Kiro CLI, not the IDE). */
  flatLabel?: string;
  /** How the tool's model sees `tool` of the MCP entry named `server` (tool-names.ts). */
  toolName(server: string, tool: string): string;
  /** One sentence naming the tools of `server`, with `example` spelled out (tool-names.ts). */
  namingSentence(server: string, example: string): string;
  /** What shows the tool installed: binaries on PATH, then folders (commands/agents.ts). */
  probes: { bins: string[]; dirs(home: string, env: Record<string, string | undefined>): string[] };
}
