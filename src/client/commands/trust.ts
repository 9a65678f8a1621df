import { artifactKeyId } from "../../common/provisioning/artifact-sign.js";
import { type ClientConfig, type LoadedConfig, loadConfig, saveConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_OK,
  loggerFor,
  reportFailure,
} from "../lib/io.js";
import { fetchKbManifest } from "../provision/kb-manifest.js";
import { pinnedKeys, withPinnedKeys } from "../provision/trust.js";

export interface TrustCommandOptions extends CommonOptions {
  /** The KB; absent = list what is trusted, pinned and approved. */
  kb?: string;
  /** Withdraw the consent to the KB's unsigned artifacts. */
  revoke?: boolean;
  /** Pin the public key the server names for the KB (trust on first use), instead of `trust`. */
  pinKeyFromServer?: boolean;
  json?: boolean;
}

function listState(io: CommandIo, config: ClientConfig, json: boolean | undefined): number {
  const keys = Object.entries(config.signing_keys ?? {}).map(([kb, list]) => ({
    kb,
    keys: list.map((k) => ({ key_id: artifactKeyId(k), public_key: k })),
  }));
  const approvals = config.approvals ?? [];
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ trust: config.trust ?? [], signing_keys: keys, approvals })}\n`,
    );
    return EXIT_OK;
  }
  io.stdout.write(
    `trusted (unsigned artifacts accepted): ${(config.trust ?? []).join(", ") || "none"}\n`,
  );
  if (keys.length === 0) io.stdout.write("pinned signing keys: none\n");
  for (const { kb, keys: list } of keys) {
    for (const k of list)
      io.stdout.write(`pinned for ${kb}: key id ${k.key_id} (public key ${k.public_key})\n`);
  }
  if (approvals.length === 0) io.stdout.write("approved MCP servers: none\n");
  for (const a of approvals) {
    io.stdout.write(
      `approved MCP server ${a.name} of KB ${a.kb} (content hash ${a.content_hash.slice(0, 12)}…)\n`,
    );
  }
  return EXIT_OK;
}

async function pinFromServer(io: CommandIo, loaded: LoadedConfig, kb: string, json?: boolean) {
  const manifest = await fetchKbManifest(io, loaded.config, kb);
  const key = manifest.signingKey;
  if (!key) {
    throw new ConfigError(
      `KB ${kb} does not sign its artifacts (the server has no artifact_signing_seed for it); nothing pinned — use cartographer trust ${kb} to accept its unsigned artifacts`,
    );
  }
  const already = pinnedKeys(loaded.config, kb).includes(key.public_key);
  if (!already) {
    await saveConfig(loaded, withPinnedKeys(loaded.config, { [kb]: [key.public_key] }));
  }
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ state: already ? "already-pinned" : "pinned", kb, key_id: key.key_id, public_key: key.public_key })}\n`,
    );
    return EXIT_OK;
  }
  io.stdout.write(
    `${already ? "already pinned" : "pinned"} for KB ${kb}: key id ${key.key_id}\n  public key ${key.public_key}\n`,
  );
  if (!already) {
    loggerFor(io).warn(
      `this key was taken from the server on first use: compare its key id with the one the KB's owner gives you (the server operator derives it from the KB's artifact_signing_seed); from now on artifacts of ${kb} must be signed with it`,
    );
  }
  return EXIT_OK;
}

/**
 * `cartographer trust [<kb>] [--revoke] [--pin-key-from-server] [--json]`: the persistent consent
 * to materialize a KB's unsigned artifacts (the `trust` list of `.cartographer.yaml`), its
 * withdrawal, or pinning the KB's signing key as the server names it (trust on first use; the
 * key id is printed to compare). Without a KB, lists what is trusted, pinned and approved.
 */
export async function trust(io: CommandIo, opts: TrustCommandOptions): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    const { config } = loaded;
    if (opts.kb === undefined) return listState(io, config, opts.json);
    const kb = opts.kb;
    if (opts.pinKeyFromServer) {
      if (opts.revoke)
        throw new ConfigError("--revoke and --pin-key-from-server do not go together");
      return await pinFromServer(io, loaded, kb, opts.json);
    }
    const list = config.trust ?? [];
    const had = list.includes(kb);
    if (!opts.revoke && config.server_kbs && !config.server_kbs.includes(kb)) {
      loggerFor(io).warn(
        `the server mounted no KB "${kb}" at the last connect (${config.server_kbs.join(", ") || "none"}); trusted anyway`,
      );
    }
    // Saved only when it changes (revoking what is not trusted creates no file).
    if (had === Boolean(opts.revoke)) {
      const next = opts.revoke ? list.filter((k) => k !== kb) : [...list, kb];
      await saveConfig(loaded, { ...config, trust: next });
    }
    const state = opts.revoke
      ? had
        ? "revoked"
        : "not-trusted"
      : had
        ? "already-trusted"
        : "trusted";
    if (opts.json) {
      io.stdout.write(`${JSON.stringify({ state, kb })}\n`);
      return EXIT_OK;
    }
    const line: Record<typeof state, string> = {
      trusted: `trusted: KB ${kb}; the next cartographer sync writes its unsigned artifacts (MCP servers still need cartographer approve)`,
      "already-trusted": `KB ${kb} is already trusted`,
      revoked: `no longer trusted: KB ${kb}; the next cartographer sync removes its unsigned artifacts`,
      "not-trusted": `KB ${kb} was not trusted; nothing to revoke`,
    };
    io.stdout.write(`${line[state]}\n`);
    return EXIT_OK;
  } catch (err) {
    return reportFailure(io, err, opts.json);
  }
}
