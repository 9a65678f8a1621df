/**
 * Everything `status` knows, gathered once as a value: the server's facts, each provider's facts
 * and each KB's. `status` prints it; the dashboard (src/client/dashboard) draws it. Gathering
 * never writes: it reads the yaml, the provider files, the lockfile and the disk, and asks the
 * server (/health, one MCP initialize per entry, the manifests).
 */
import { detectAgents } from "../commands/agents.js";
import type { LoadedConfig, ProviderId } from "../config.js";
import { ClientError } from "../errors.js";
import { baseUrlOf, fetchHealth, type ServerHealth } from "../health.js";
import { oauthOffer, oauthSignInNote } from "../oauth-offer.js";
import type { ProvisionPlan } from "../provision/plan.js";
import { QUIET } from "../provision/plan.js";
import { planProvider } from "../provision/provider-plan.js";
import type { BindingRun } from "../provision/provision.js";
import type { ProvisioningJson } from "../provision/report.js";
import { provisioningStatus, topologyOf } from "../provision/step.js";
import type { ProviderCheck } from "./check.js";
import type { CommandIo } from "./io.js";
import { unresolvedPlaceholderWarnings } from "./placeholder-warnings.js";
import { checkAll, overall, serverChanges } from "./provider-status.js";
import { claudeApproval, offlineBlockers, probeBlockers } from "./readiness.js";

/** The MCP-config badge (Go's D120): how many of the expected entry names the file holds. */
export type McpBadge = "in-sync" | "partial" | "missing";

/** Drifted files and sections of one provider, counted per artifact kind (`skill`, `entry`, …). */
export interface KindDrift {
  kind: string;
  count: number;
}

/** One agent tool as the dashboard shows it. */
export interface ProviderFacts {
  id: ProviderId;
  label: string;
  /** A binary on PATH or the tool's folder in the home showed it installed. */
  detected: boolean;
  /** Listed in the yaml. */
  connected: boolean;
  scope?: string;
  /** The KBs its binding names; absent = every KB the server mounts. */
  kbs?: string[];
  /** Connected and the server answered: the D120 badge, else undefined. */
  badge?: McpBadge;
  check?: ProviderCheck;
  /** Artifacts not as the KB says, per kind (report-only run). */
  drift: KindDrift[];
  /** Artifacts the trust gate held for this provider, per cause (`unsigned`, `unapproved`, …). */
  held: KindDrift[];
}

/** What the server answered, or why it did not. */
export type ServerFacts =
  | { url: string; reachable: true; health: ServerHealth }
  | { url: string; reachable: false; error: ClientError };

/** What status reports beyond the server: present only with a yaml and a reachable server. */
export interface StatusReport {
  messages: string[];
  blockers: string[];
  notes: string[];
  checks: ProviderCheck[];
  provisioning: ProvisioningJson;
  state: "in-sync" | "drift" | "blocked";
  line: string;
  /** The manifests could not be fetched or verified and no blocker says why: exit 2. */
  failed: boolean;
}

export interface StatusSnapshot {
  configFile: string;
  configExists: boolean;
  serverName: string;
  /** The NAME of the token variable (never its value). */
  tokenEnv?: string;
  /** KBs the user consented to (`cartographer trust`). */
  trusted: string[];
  server: ServerFacts;
  providers: ProviderFacts[];
  report?: StatusReport;
}

/** The D120 badge from the number of expected entries and the names absent from the file. */
export function mcpBadge(expected: number, missing: number, unreadable: boolean): McpBadge {
  const present = expected - missing;
  if (unreadable || present <= 0) return "missing";
  return present === expected ? "in-sync" : "partial";
}

/** The kind of an origin: `<kb>/<kind>/<name>` → kind, connect's `<server>/entry` → `entry`. */
function kindOf(origin: string): string {
  const parts = origin.split("/");
  return (parts.length >= 3 ? parts[1] : parts[parts.length - 1]) || "other";
}

function tally(keys: readonly string[]): KindDrift[] {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].map(([kind, count]) => ({ kind, count }));
}

/** Every action of a plan that is not quiet, counted once per artifact kind it touches. */
export function driftByKind(plan: ProvisionPlan): KindDrift[] {
  const kinds: string[] = [];
  const add = (origins: readonly string[]) => {
    const of = new Set(origins.map(kindOf));
    kinds.push(...(of.size > 0 ? of : ["other"]));
  };
  for (const a of plan.files) if (!QUIET.has(a.kind)) add(a.origin.split(","));
  for (const a of plan.sections) if (!QUIET.has(a.kind)) add(a.section.origins);
  return tally(kinds);
}

async function gatherServer(io: CommandIo, serverUrl: string): Promise<ServerFacts> {
  let url = serverUrl;
  try {
    url = baseUrlOf(serverUrl);
    return { url, reachable: true, health: await fetchHealth(url, io.fetch) };
  } catch (err) {
    if (err instanceof ClientError) return { url, reachable: false, error: err };
    throw err;
  }
}

async function gatherReport(
  io: CommandIo,
  loaded: LoadedConfig,
  server: { url: string; health: ServerHealth },
): Promise<{ report: StatusReport; runs: readonly BindingRun[] }> {
  const { config } = loaded;
  const { url: base, health } = server;
  const messages = serverChanges(config, health);
  const topology = topologyOf(base, health);
  const checks = await checkAll(config, topology, io);
  const approval = await claudeApproval(config, topology, io);
  const oauth = config.token_env ? null : await oauthOffer(base, io.fetch);
  const blockers = [
    ...(await offlineBlockers(config, io)),
    ...approval.blockers,
    ...(await probeBlockers(config, topology, io, oauth)),
  ];
  const notes = [...approval.notes];
  if (oauth) notes.push(oauthSignInNote(config.providers.map((b) => b.name).join(", "), oauth));
  notes.push(...(await unresolvedPlaceholderWarnings(io, config)));
  // Artifacts (docs/decisions.md "`status` and `doctor` exit 1"): compared with the lockfile and
  // the disk, never written.
  const { json: provisioning, runs } = await provisioningStatus(io, config, topology);
  const drift =
    messages.length > 0 ||
    checks.some((c) => c.state !== "in-sync") ||
    provisioning.state === "drift";
  const { state, line } = overall(drift, blockers);
  // A manifest that cannot be fetched or verified is an error, unless a blocker (token unset
  // or refused) already says why the server answered nothing.
  // With OAuth and no token_env this CLI cannot read the manifests: the note above says so.
  const failed = provisioning.state === "error" && blockers.length === 0 && !oauth;
  const report = { messages, blockers, notes, checks, provisioning, state, line, failed };
  return { report, runs };
}

/**
 * Gathers the snapshot of a loaded yaml (which may not exist: every provider is then
 * disconnected). An unreachable server or a bad `server_url` is a fact (`server.reachable:
 * false`), not a throw; the report is gathered only with a yaml and a server that answered.
 */
export async function statusSnapshot(io: CommandIo, loaded: LoadedConfig): Promise<StatusSnapshot> {
  const { config } = loaded;
  const server = await gatherServer(io, config.server_url);
  const gathered =
    loaded.exists && server.reachable ? await gatherReport(io, loaded, server) : undefined;
  const connected = new Set<string>(config.providers.map((p) => p.name));
  const providers = detectAgents(io.home, io.env, connected).map((row): ProviderFacts => {
    const binding = config.providers.find((b) => b.name === row.provider);
    const check = gathered?.report.checks.find((c) => c.provider === row.provider);
    const run = gathered?.runs.find((r) => r.binding.name === row.provider);
    const facts: ProviderFacts = {
      id: row.provider,
      label: row.name,
      detected: row.installed,
      connected: row.connected,
      drift: run ? driftByKind(run.plan) : [],
      held: tally((run?.held ?? []).map((h) => h.cause ?? "held")),
    };
    if (binding) facts.scope = binding.scope ?? "user";
    if (binding?.kbs && binding.kbs.length > 0) facts.kbs = [...binding.kbs];
    if (binding && check && server.reachable) {
      facts.check = check;
      const topology = topologyOf(server.url, server.health);
      const expected = planProvider(config, binding, topology, io, false).entries.length;
      facts.badge = mcpBadge(expected, check.missing.length, check.error !== undefined);
    }
    return facts;
  });
  return {
    configFile: loaded.file,
    configExists: loaded.exists,
    serverName: config.server_name,
    ...(config.token_env ? { tokenEnv: config.token_env } : {}),
    trusted: config.trust ?? [],
    server,
    providers,
    ...(gathered ? { report: gathered.report } : {}),
  };
}
