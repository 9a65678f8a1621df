/**
 * Provisioning inside the client commands (docs/provisioning.md "For the client implementer"):
 * connect and sync fetch and gate every manifest BEFORE writing anything (a failure writes nothing
 * at all, exit 2), write the MCP entries, then materialize the artifacts of the providers whose
 * entries were written; status only reports; disconnect prunes what the lockfile says we wrote,
 * offline.
 */
import type { ClientConfig, ProviderBinding } from "../config.js";
import { BadManifestError, ClientError, ProtocolError } from "../errors.js";
import type { ServerHealth } from "../health.js";
import { type CommandIo, loggerFor } from "../lib/io.js";
import { prepareProvisioning } from "./prepare.js";
import type { Topology } from "./provider-plan.js";
import type { BindingRun, Prepared, TargetFor, TrustFlags } from "./provision.js";
import { type ProvisioningJson, printStatus, printSync, statusJson } from "./report.js";
import { deprovisionBindings, provisionBindings } from "./run.js";
import { provisionTargetFor } from "./targets/index.js";

/** The options connect and sync add for provisioning. */
export interface ProvisionFlags extends TrustFlags {
  /** `--force`: overwrite files and sections the user edited, and foreign files in the way. */
  force?: boolean;
}

/** What applyBindings needs to materialize artifacts after writing the entries. */
export interface ProvisionStep {
  prepared: Prepared;
  force: boolean;
  targetFor: TargetFor;
}

export function topologyOf(base: string, health: ServerHealth): Topology {
  return {
    base,
    ...(health.routedPath !== undefined ? { routedPath: health.routedPath } : {}),
    serverKbs: health.kbs,
  };
}

/** Provisioning could not start: the manifests were not fetched. Entries are still written. */
export interface ProvisionUnavailable {
  error: string;
  /** The server refused the token (HTTP 401): connect without a token_env says how to add one. */
  unauthorized?: boolean;
}

/**
 * Fetches and gates every manifest the bindings reach. An answer that fails any check — a bad
 * signature, a hash mismatch, a malformed field, an unsafe path, over the limits (`untrusted` /
 * `integrity` / BadManifestError) — throws: the command then writes nothing at all, entries,
 * block and yaml included. A server that cannot answer (unreachable, HTTP error, a token that
 * may not read a KB) comes back as `{error}`: the entries and instructions are written as
 * before, no artifact is written or removed for any provider, and the command exits 2
 * (docs/decisions.md "Client").
 */
export async function prepareStep(
  io: CommandIo,
  config: ClientConfig,
  bindings: readonly ProviderBinding[],
  topology: Topology,
  flags: ProvisionFlags,
  targetFor: TargetFor = provisionTargetFor,
): Promise<ProvisionStep | ProvisionUnavailable> {
  try {
    const prepared = await prepareProvisioning(io, config, bindings, topology, flags);
    return { prepared, force: flags.force === true, targetFor };
  } catch (err) {
    if (err instanceof BadManifestError) throw err;
    if (err instanceof ClientError && (err.kind === "integrity" || err.kind === "untrusted"))
      throw err;
    if (!(err instanceof ClientError)) throw err;
    return {
      error: err.message,
      ...(err instanceof ProtocolError && err.status === 401 ? { unauthorized: true } : {}),
    };
  }
}

/**
 * Each KB's instructions.md as the trust gate accepted it (kb → text): an artifact like any
 * other, so a KB whose `instructions` artifact is held (unsigned, not trusted), whose manifest
 * could not be fetched, or whose server has no manifest at all gets none in the block.
 */
export function acceptedInstructions(
  step: ProvisionStep | ProvisionUnavailable | undefined,
): Map<string, string> {
  const out = new Map<string, string>();
  if (!step || "error" in step) return out;
  for (const a of step.prepared.decision.accepted) {
    const file = a.kind === "instructions" ? a.files[0] : undefined;
    if (file) out.set(a.kb, file.bytes.toString("utf8"));
  }
  return out;
}

/**
 * Materializes (or, with dryRun, only reports) the artifacts of `bindings`. Returns the exit
 * contribution: 0, 1 when something was kept because it is the user's, 2 when something failed.
 */
export async function materialize(
  io: CommandIo,
  config: ClientConfig,
  bindings: readonly ProviderBinding[],
  step: ProvisionStep | ProvisionUnavailable,
  dryRun: boolean,
): Promise<number> {
  if ("error" in step) {
    loggerFor(io).error(
      `artifacts not provisioned (nothing of them was written or removed): ${step.error}`,
    );
    return 2;
  }
  try {
    const result = await provisionBindings(io, config, bindings, step.prepared, {
      write: !dryRun,
      force: step.force,
      targetFor: step.targetFor,
    });
    if (dryRun) {
      printStatus(io, statusJson(io, result));
      return 0;
    }
    return printSync(io, result);
  } catch (err) {
    loggerFor(io).error(`artifacts not provisioned: ${(err as Error)?.message ?? String(err)}`);
    return 2;
  }
}

/** The `provisioning` part of status, and the report-only runs it was read from (none on error). */
export interface ProvisioningReport {
  json: ProvisioningJson;
  runs: readonly BindingRun[];
}

/**
 * The `provisioning` part of status: compares, never writes. A failure to fetch or verify is
 * reported in the object (`state: "error"`) rather than thrown, so the rest of status still
 * prints. The runs let the dashboard count drift per artifact kind.
 */
export async function provisioningStatus(
  io: CommandIo,
  config: ClientConfig,
  topology: Topology,
  targetFor: TargetFor = provisionTargetFor,
): Promise<ProvisioningReport> {
  try {
    const prepared = await prepareProvisioning(io, config, config.providers, topology);
    const result = await provisionBindings(io, config, config.providers, prepared, {
      write: false,
      force: false,
      targetFor,
    });
    return { json: statusJson(io, result), runs: result.runs };
  } catch (err) {
    const json: ProvisioningJson = {
      state: "error",
      providers: [],
      held: [],
      notes: [],
      errors: [],
      message: (err as Error)?.message ?? String(err),
    };
    return { json, runs: [] };
  }
}

export { printStatus };

/**
 * Prunes every managed file and section of `bindings` and forgets them in the lockfile; files
 * the user edited are kept and named. Offline. Returns false when something failed.
 */
export async function unprovision(
  io: CommandIo,
  config: ClientConfig,
  bindings: readonly ProviderBinding[],
  targetFor: TargetFor = provisionTargetFor,
): Promise<boolean> {
  try {
    const result = await deprovisionBindings(io, config, bindings, targetFor);
    return printSync(io, result, true) < 2;
  } catch (err) {
    loggerFor(io).error(`artifacts not removed: ${(err as Error)?.message ?? String(err)}`);
    return false;
  }
}
