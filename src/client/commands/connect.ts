import {
  type ClientConfig,
  loadConfig,
  type ProviderBinding,
  type ProviderId,
  type Scope,
} from "../config.js";
import { ConfigError } from "../errors.js";
import { baseUrlOf, fetchHealth } from "../health.js";
import { applyBindings } from "../lib/apply-bindings.js";
import { checkKnownKbs, selectProviders } from "../lib/bindings.js";
import { type CommandIo, type CommonOptions, configPath, reportError } from "../lib/io.js";
import { oauthOffer, oauthSignInNote } from "../oauth-offer.js";
import { type ProvisionFlags, prepareStep, topologyOf } from "../provision/step.js";
import { PROVIDERS } from "../provision/targets/index.js";
import { withPinnedKeys } from "../provision/trust.js";

export interface ConnectOptions extends CommonOptions, ProvisionFlags {
  /** Provider ids, or ["all"]; empty = the providers already in the yaml. */
  providers?: string[];
  /** KB binding for the named providers; [] = all KBs; undefined = keep the saved binding. */
  kbs?: string[];
  serverUrl?: string;
  /** NAME of the env var that holds the token (never the token). */
  tokenEnv?: string;
  scope?: Scope;
  dryRun?: boolean;
  /** Antigravity only: write the literal token (it cannot reference an env var); file 0600. */
  writeToken?: boolean;
  /** Sets (true) or clears (false) the bindings' SessionStart bootstrap hook; undefined keeps it. */
  bootstrapHook?: boolean;
  /** `--auto-trust`: unsigned KB artifacts accepted for this run only (not saved). */
  autoTrust?: boolean;
  /** `--pin-key <kb>=<hex>` values, parsed; saved into `signing_keys` with the config. */
  pinKeys?: Record<string, string[]>;
}

/**
 * A portable environment variable name (POSIX: upper case, digits, underscore). Upper case
 * only on purpose: a pasted token (`cart_…`, mixed case) must never pass for a name, since
 * the name is saved in the yaml and printed in messages.
 */
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;

/** `cartographer connect [provider…|all] [--kbs] [--server-url] [--token-env] [--scope] [--dry-run]`. */
export async function connect(io: CommandIo, opts: ConnectOptions = {}): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    const config: ClientConfig = withPinnedKeys({ ...loaded.config }, opts.pinKeys);
    if (opts.serverUrl) config.server_url = opts.serverUrl;
    if (opts.tokenEnv === "") {
      // `--token-env ""`: no Authorization from now on (the entries lose ours on this run).
      delete config.token_env;
    } else if (opts.tokenEnv !== undefined) {
      if (!ENV_NAME.test(opts.tokenEnv)) {
        throw new ConfigError(
          "--token-env takes the NAME of an environment variable in upper case (e.g. CARTOGRAPHER_TOKEN), not a token; nothing was saved",
        );
      }
      config.token_env = opts.tokenEnv;
    }
    const bindings = selectProviders(opts.providers, config.providers, io, opts.scope).map((b) => {
      const next: ProviderBinding = { ...b };
      const kbs = opts.kbs?.map((k) => k.trim()).filter((k) => k !== "");
      if (kbs !== undefined) {
        if (kbs.length > 0) next.kbs = kbs;
        else delete next.kbs;
      }
      if (opts.scope) next.scope = opts.scope;
      // A project binding remembers its directory; a user binding has none.
      if (opts.scope === "project") next.project_dir = io.cwd;
      else if (opts.scope === "user") delete next.project_dir;
      if (opts.writeToken && !PROVIDERS[b.name].referencesEnv) next.write_token = true;
      if (opts.bootstrapHook === true) next.bootstrap_hook = true;
      else if (opts.bootstrapHook === false) delete next.bootstrap_hook;
      return next;
    });
    // Bindings whose scope or project directory changes: their old place is cleaned first.
    const moving = new Map<ProviderId, ProviderBinding>();
    for (const b of bindings) {
      const saved = config.providers.find((p) => p.name === b.name);
      if (
        saved &&
        ((saved.scope ?? "user") !== (b.scope ?? "user") || saved.project_dir !== b.project_dir)
      ) {
        moving.set(b.name, saved);
      }
    }
    const base = baseUrlOf(config.server_url);
    const health = await fetchHealth(base, io.fetch);
    checkKnownKbs(bindings, health);
    // Manifests and trust first: a bad signature or hash writes nothing at all.
    let step: Awaited<ReturnType<typeof prepareStep>> | undefined = await prepareStep(
      io,
      config,
      bindings,
      topologyOf(base, health),
      opts,
    );
    const oauth =
      "error" in step && step.unauthorized && !config.token_env
        ? await oauthOffer(base, io.fetch)
        : null;
    if (oauth) {
      // The agent tools sign in themselves (oauth-offer.ts): the entries carry no token, and the
      // artifacts wait for a token this CLI can use (nothing is written or removed for them).
      io.stderr.write(`${oauthSignInNote(bindings.map((b) => b.name).join(", "), oauth)}\n`);
      step = undefined;
    } else if ("error" in step && step.unauthorized && !config.token_env) {
      // An entry without a token cannot work against this server: say what to run instead.
      const names = bindings.map((b) => b.name).join(" ");
      throw new ConfigError(
        `the server at ${base} requires a token (HTTP 401) and no token_env is configured; nothing was written. Put the token in an environment variable and pass its NAME: export CARTOGRAPHER_TOKEN=<your token>; cartographer connect ${names} --token-env CARTOGRAPHER_TOKEN`,
      );
    }
    const dryRun = opts.dryRun === true;
    return await applyBindings(io, {
      loaded,
      config,
      bindings,
      health,
      dryRun,
      previous: moving,
      ...(step ? { provision: step } : {}),
    });
  } catch (err) {
    return reportError(io, err);
  }
}
