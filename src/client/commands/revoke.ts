import { loadConfig, saveConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_OK,
  reportFailure,
} from "../lib/io.js";
import { withoutApproval } from "../provision/approvals.js";

export interface RevokeOptions extends CommonOptions {
  kb: string;
  name: string;
  json?: boolean;
}

/**
 * `cartographer revoke <kb> <name> [--json]`: removes the approval of an MCP server descriptor
 * from `.cartographer.yaml` (offline); the next sync removes the descriptor it wrote. Revoking
 * what is not approved is not an error (the state asked for holds).
 */
export async function revoke(io: CommandIo, opts: RevokeOptions): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    if (!loaded.exists) {
      throw new ConfigError(`${loaded.file} does not exist; nothing is approved`);
    }
    const { config, removed } = withoutApproval(loaded.config, opts.kb, opts.name);
    if (removed) await saveConfig(loaded, config);
    if (opts.json) {
      const state = removed ? "revoked" : "not-approved";
      io.stdout.write(`${JSON.stringify({ state, kb: opts.kb, name: opts.name })}\n`);
    } else {
      io.stdout.write(
        removed
          ? `revoked: MCP server ${opts.name} of KB ${opts.kb}; the next cartographer sync removes it from the agent tools\n`
          : `MCP server ${opts.name} of KB ${opts.kb} was not approved; nothing to revoke\n`,
      );
    }
    return EXIT_OK;
  } catch (err) {
    return reportFailure(io, err, opts.json);
  }
}
