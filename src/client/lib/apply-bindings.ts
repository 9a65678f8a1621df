/**
 * The write path connect, sync and reconnect share (one engine: provision/connection.ts for
 * connect's own part, provision/step.ts for the artifacts; docs/decisions.md "Structure: client
 * write engine").
 */
import {
  type ClientConfig,
  type LoadedConfig,
  type ProviderBinding,
  type ProviderId,
  saveConfig,
} from "../config.js";
import { ConfigError } from "../errors.js";
import { baseUrlOf, type ServerHealth } from "../health.js";
import {
  applyPlan,
  bearerHeaders,
  DigestCache,
  ProviderFailure,
  removeProvider,
} from "../provision/connection.js";
import { planProvider, providerFiles } from "../provision/provider-plan.js";
import {
  acceptedInstructions,
  materialize,
  type ProvisionStep,
  type ProvisionUnavailable,
  unprovision,
} from "../provision/step.js";
import { PROVIDERS } from "../provision/targets/index.js";
import { expandInstructions } from "../repos/expand-instructions.js";
import { PathResolver } from "../repos/resolver.js";
import { checkKnownKbs } from "./bindings.js";
import { type CommandIo, EXIT_ERROR, EXIT_OK, loggerFor, tilde } from "./io.js";
import { claudeApprovalState, codexTrustProblem } from "./readiness.js";

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
  const oldScope = previous.scope ?? "user";
  const oldFiles = providerFiles(previous, io).files;
  const newFiles = providerFiles(next, io).files;
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
  if (await removeProvider(io, config, previous)) {
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
 * live `/health` — connect's part of each provider first (connection.ts), then, with
 * `provision`, the artifacts of every provider whose entries were written — and records what
 * the server told us in the yaml.
 */
export interface ApplyBindingsOptions {
  loaded: LoadedConfig;
  config: ClientConfig;
  bindings: ProviderBinding[];
  health: ServerHealth;
  dryRun: boolean;
  /** Saved bindings connect is moving to another scope or project (see leaveOldPlace). */
  previous?: ReadonlyMap<ProviderId, ProviderBinding>;
  /** Manifests fetched and trusted beforehand, or why they could not be. */
  provision?: ProvisionStep | ProvisionUnavailable;
}

export async function applyBindings(io: CommandIo, opts: ApplyBindingsOptions): Promise<number> {
  const { loaded, config, bindings, health, dryRun, provision } = opts;
  const previous = opts.previous ?? new Map<ProviderId, ProviderBinding>();
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
  // Placeholders are resolved once for every provider (docs/decisions.md "Resolve: placeholders
  // in the instructions block"); one left as written is a warning, never a failure.
  const expansion = await expandInstructions(
    acceptedInstructions(provision),
    () => new PathResolver(io, config, tilde(io, loaded.file), { keepCache: dryRun }),
  );
  for (const w of expansion.warnings) log.warn(w);
  const instructions = expansion.byKb;
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
