import {
  type ClientConfig,
  type LoadedConfig,
  loadConfig,
  type ProviderBinding,
  type ProviderId,
  type Scope,
  saveConfig,
} from "../config.js";
import { ConfigError } from "../errors.js";
import { baseUrlOf, fetchHealth, type ServerHealth } from "../health.js";
import { checkKnownKbs, selectProviders } from "../lib/bindings.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_ERROR,
  EXIT_OK,
  loggerFor,
  reportError,
  tilde,
} from "../lib/io.js";
import { claudeApprovalState, codexTrustProblem } from "../lib/readiness.js";
import {
  applyPlan,
  bearerHeaders,
  DigestCache,
  ProviderFailure,
  removeProvider,
} from "../provision/connection.js";
import { planProvider } from "../provision/provider-plan.js";
import {
  acceptedInstructions,
  materialize,
  type ProvisionFlags,
  type ProvisionStep,
  type ProvisionUnavailable,
  prepareStep,
  topologyOf,
  unprovision,
} from "../provision/step.js";
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

/**
 * When a binding moves (another scope, or another project directory), removes what connect
 * owned at the old place first, so the old scope keeps no orphan entry or block. A file
 * that cannot be edited fails the provider: its old binding stays recorded, which is true.
 */
async function leaveOldPlace(
  io: CommandIo,
  config: ClientConfig,
  previous: ProviderBinding,
  next: ProviderBinding,
  dryRun: boolean,
): Promise<void> {
  const adapter = PROVIDERS[next.name];
  const oldScope = previous.scope ?? "user";
  const oldFiles = adapter.paths(oldScope, io.home, previous.project_dir ?? io.cwd, io.env);
  const newFiles = adapter.paths(next.scope ?? "user", io.home, next.project_dir ?? io.cwd, io.env);
  if (oldFiles.config === newFiles.config) return;
  if (dryRun) {
    io.stdout.write(
      `${next.name}: would remove its entries from ${tilde(io, oldFiles.config)} (${oldScope} scope)\n`,
    );
    return;
  }
  // The KB artifacts written at the old place go first (from the lockfile, offline).
  if (!(await unprovision(io, config, [previous]))) {
    throw new ConfigError(
      `the artifacts at the old place (${oldScope} scope) could not all be removed; see above`,
    );
  }
  if (await removeProvider(next.name, oldScope, config.server_name, io, previous.project_dir)) {
    io.stdout.write(
      `${next.name}: removed its entries from ${tilde(io, oldFiles.config)} (${oldScope} scope)\n`,
    );
  }
}

/**
 * A project-scope entry is not used at once: Codex reads `.codex/config.toml` only in a trusted
 * project, Claude Code asks to approve `.mcp.json` servers. Says so on stderr with the exact next
 * step; connect never trusts or approves on the user's behalf (docs/decisions.md).
 */
async function projectNotice(
  io: CommandIo,
  binding: ProviderBinding,
  entryNames: string[],
  dryRun: boolean,
): Promise<void> {
  const log = loggerFor(io);
  const codex = await codexTrustProblem(binding, io);
  if (codex) {
    log.warn(
      `${codex.replace(/\n/g, "\n    ")}\n    (or start codex in that directory and accept its trust prompt)`,
    );
  }
  const claude = await claudeApprovalState(binding, entryNames, io);
  if (claude && !dryRun) log.warn(claude.message);
}

/**
 * The shared write path of connect, sync and reconnect: applies every binding against the
 * live `/health`, then records what the server told us in the yaml. `previous` holds the saved
 * bindings connect is moving to another scope or project (see leaveOldPlace). With `provision`
 * (manifests fetched and trusted beforehand), the artifacts of every provider whose entries were
 * written are materialized too.
 */
export async function applyBindings(
  io: CommandIo,
  loaded: LoadedConfig,
  config: ClientConfig,
  bindings: ProviderBinding[],
  health: ServerHealth,
  dryRun: boolean,
  previous: ReadonlyMap<ProviderId, ProviderBinding> = new Map(),
  provision?: ProvisionStep | ProvisionUnavailable,
): Promise<number> {
  const log = loggerFor(io);
  const base = baseUrlOf(config.server_url);
  checkKnownKbs(bindings, health);
  if (config.token_env && !io.env[config.token_env]) {
    log.warn(`$${config.token_env} is not set; agent tools will not authenticate until it is`);
  }
  const routed = health.routedPath !== undefined;
  const topology = {
    base,
    ...(health.routedPath !== undefined ? { routedPath: health.routedPath } : {}),
    serverKbs: health.kbs,
  };
  const digests = new DigestCache(bearerHeaders(config, io), io);
  const instructions = acceptedInstructions(provision);
  // One provider's unparsable or read-only file fails that provider only: the others are
  // still written, and every provider whose file was written is recorded in the yaml (so
  // status and disconnect know about it).
  const recorded: ProviderBinding[] = [];
  const failed: ProviderId[] = [];
  for (const binding of bindings) {
    try {
      const old = previous.get(binding.name);
      if (old) await leaveOldPlace(io, config, old, binding, dryRun);
      const plan = planProvider(config, binding, topology, io, !dryRun);
      const warnings = await applyPlan(plan, config, routed, digests, io, dryRun, instructions);
      for (const w of warnings) log.warn(`${binding.name}: ${w}`);
      const provider = PROVIDERS[binding.name];
      if (!routed && provider.flatNamespace && plan.entries.length >= 2) {
        log.warn(
          `${provider.flatLabel ?? provider.label} has a flat tool namespace: its ${plan.entries.length} per-KB entries expose the same tool names; upgrade the server to get one routed entry`,
        );
      }
      await projectNotice(
        io,
        binding,
        plan.entries.map((e) => e.name),
        dryRun,
      );
      recorded.push(binding);
    } catch (err) {
      const touched = err instanceof ProviderFailure && err.touched;
      const reason = err instanceof ProviderFailure ? err.reason : err;
      log.error(`${binding.name}: ${(reason as Error)?.message ?? String(reason)}`);
      failed.push(binding.name);
      if (touched) recorded.push(binding);
    }
  }
  let exit = failed.length > 0 ? EXIT_ERROR : EXIT_OK;
  if (failed.length > 0 && failed.length < bindings.length) {
    log.error(`not connected: ${failed.join(", ")}; the other providers were written`);
  }
  if (provision) {
    // A provider whose MCP entry failed gets no artifacts.
    const ok = bindings.filter((b) => !failed.includes(b.name));
    exit = Math.max(exit, await materialize(io, config, ok, provision, dryRun));
  }
  if (dryRun) return exit;
  const providers = [...config.providers];
  for (const b of recorded) {
    const at = providers.findIndex((p) => p.name === b.name);
    if (at >= 0) providers[at] = b;
    else providers.push(b);
  }
  const next: ClientConfig = {
    ...config,
    providers,
    server_mount_mode: health.mountMode,
    server_version: health.version,
    server_kbs: health.kbs,
  };
  if (health.routedPath !== undefined) next.server_routed_path = health.routedPath;
  else delete next.server_routed_path;
  await saveConfig(loaded, next);
  return exit;
}

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
    const step = await prepareStep(io, config, bindings, topologyOf(base, health), opts);
    if ("error" in step && step.unauthorized && !config.token_env) {
      // An entry without a token cannot work against this server: say what to run instead.
      const names = bindings.map((b) => b.name).join(" ");
      throw new ConfigError(
        `the server at ${base} requires a token (HTTP 401) and no token_env is configured; nothing was written. Put the token in an environment variable and pass its NAME: export CARTOGRAPHER_TOKEN=<your token>; cartographer connect ${names} --token-env CARTOGRAPHER_TOKEN`,
      );
    }
    const dryRun = opts.dryRun === true;
    return await applyBindings(io, loaded, config, bindings, health, dryRun, moving, step);
  } catch (err) {
    return reportError(io, err);
  }
}
