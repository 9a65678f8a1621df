/**
 * Whether the agent tools can actually use what connect wrote, beyond the files matching: the
 * token variable they reference is set, the server accepts that token, Codex reads a
 * project-scope file at all (a trusted project) and Claude Code has not rejected a project
 * server. Each problem is one worded "blocker" naming the provider, the variable (never its
 * value) and the next step; status and doctor exit 1 on any. A Claude project server not yet
 * approved is a note (Claude Code asks on its next start).
 *
 * `offlineBlockers` reads only the environment and local files (doctor stays offline);
 * `probeBlockers` opens one MCP session per distinct entry URL and token (status only).
 */

import { claudeProjectApproval } from "../claude-approval.js";
import { codexProjectTrust, trustSnippet } from "../codex-trust.js";
import type { ClientConfig, ProviderBinding } from "../config.js";
import { type ClientError, ProtocolError, ToolError } from "../errors.js";
import { openMcpSession } from "../mcp-session.js";
import { planProvider, type Topology } from "../provision/provider-plan.js";
import { PROVIDERS } from "../provision/targets/index.js";
import { type CommandIo, tilde } from "./io.js";

/** True when the provider's entry sends the token read from `token_env`. */
function sendsEnvToken(config: ClientConfig, binding: ProviderBinding): boolean {
  if (!config.token_env) return false;
  return PROVIDERS[binding.name].referencesEnv || binding.write_token === true;
}

function tokenValue(config: ClientConfig, io: CommandIo): string | undefined {
  const value = config.token_env ? io.env[config.token_env] : undefined;
  return value && value.trim() !== "" ? value : undefined;
}

const names = (bindings: ProviderBinding[]) => bindings.map((b) => b.name).join(", ");

/** Why Codex ignores a project-scope binding's file, with the exact lines to add; else undefined. */
export async function codexTrustProblem(
  binding: ProviderBinding,
  io: CommandIo,
): Promise<string | undefined> {
  if (binding.name !== "codex" || binding.scope !== "project") return undefined;
  const dir = binding.project_dir ?? io.cwd;
  const trust = await codexProjectTrust(dir, io.home, io.env);
  if (trust.trusted) return undefined;
  const why = trust.problem
    ? ` (${trust.problem})`
    : trust.level !== undefined
      ? ` (it is marked trust_level = "${trust.level}")`
      : "";
  return `codex (project ${tilde(io, dir)}): Codex ignores ${tilde(io, dir)}/.codex/config.toml until the project is trusted${why}; add to ${tilde(io, trust.configFile)}:\n${trustSnippet(trust)}`;
}

/**
 * Where Claude Code stands on a project-scope binding's `.mcp.json` servers: undefined when
 * approved (or not a Claude project binding), else the worded state and next step.
 */
export async function claudeApprovalState(
  binding: ProviderBinding,
  entryNames: string[],
  io: CommandIo,
): Promise<{ rejected: boolean; message: string } | undefined> {
  if (binding.name !== "claude" || binding.scope !== "project" || entryNames.length === 0) {
    return undefined;
  }
  const dir = binding.project_dir ?? io.cwd;
  const state = await claudeProjectApproval(dir, io.home, entryNames);
  if (state === "approved") return undefined;
  const servers = entryNames.map((n) => `"${n}"`).join(", ");
  const file = `${tilde(io, dir)}/.mcp.json`;
  return state === "rejected"
    ? {
        rejected: true,
        message: `claude (project ${tilde(io, dir)}): ${servers} in ${file} was rejected in Claude Code; enable it in /mcp there (or run claude mcp reset-project-choices in ${tilde(io, dir)})`,
      }
    : {
        rejected: false,
        message: `claude (project ${tilde(io, dir)}): Claude Code asks to approve ${servers} from ${file} the next time it starts there; approve it then (or later in /mcp); until then claude mcp list shows it "Pending approval"`,
      };
}

/** The token variable is set (when any entry references it) and Codex trusts its projects. */
export async function offlineBlockers(config: ClientConfig, io: CommandIo): Promise<string[]> {
  const out: string[] = [];
  const referencing = config.providers.filter(
    (b) => PROVIDERS[b.name].referencesEnv && config.token_env,
  );
  if (referencing.length > 0 && tokenValue(config, io) === undefined) {
    out.push(
      `$${config.token_env} is not set: ${names(referencing)} read the bearer token from it and send none without it (a server with auth refuses them); set ${config.token_env} in the environment the agent tools start from`,
    );
  }
  for (const b of config.providers) {
    const problem = await codexTrustProblem(b, io);
    if (problem) out.push(problem);
  }
  return out;
}

/**
 * Claude Code approval of project-scope `.mcp.json` servers: a rejected server is a blocker, a
 * pending one a note (Claude Code asks on its next start). Offline.
 */
export async function claudeApproval(
  config: ClientConfig,
  topology: Topology,
  io: CommandIo,
): Promise<{ blockers: string[]; notes: string[] }> {
  const out = { blockers: [] as string[], notes: [] as string[] };
  for (const b of config.providers) {
    if (b.name !== "claude" || b.scope !== "project") continue;
    const entryNames = planProvider(config, b, topology, io, false).entries.map((e) => e.name);
    const state = await claudeApprovalState(b, entryNames, io);
    if (state) (state.rejected ? out.blockers : out.notes).push(state.message);
  }
  return out;
}

interface Probe {
  url: string;
  token: string | undefined;
  bindings: ProviderBinding[];
}

function describeRefusal(config: ClientConfig, probe: Probe, err: ClientError): string {
  const who = names(probe.bindings);
  if (err instanceof ProtocolError && err.status === 401) {
    if (probe.token !== undefined) {
      return `the server refused the token in $${config.token_env} (HTTP 401 at ${probe.url}): ${who} cannot connect; set ${config.token_env} to a token the server accepts`;
    }
    if (config.token_env) {
      return `${who}: the server requires a bearer token (HTTP 401 at ${probe.url}) and the entry carries none; run cartographer connect ${who} --write-token`;
    }
    return `the server requires a bearer token (HTTP 401 at ${probe.url}) but .cartographer.yaml names no token_env: ${who} cannot connect; run cartographer connect --token-env NAME`;
  }
  if (err instanceof ToolError) {
    return `${who}: the server refused the MCP session at ${probe.url} (${err.message}); ${config.token_env ? `the token in $${config.token_env}` : "an anonymous client"} may read none of the bound KBs`;
  }
  return `${who}: the MCP endpoint ${probe.url} does not answer as the agent tools need: ${err.message}`;
}

/**
 * Opens (and closes) one MCP session per distinct entry URL and token, as the agent tools
 * would, and words every refusal. Entries whose token variable is unset are left to
 * offlineBlockers (one message, not two).
 */
export async function probeBlockers(
  config: ClientConfig,
  topology: Topology,
  io: CommandIo,
  /** The server's authorization servers: an entry without a token then signs in by OAuth. */
  oauth: readonly string[] | null = null,
): Promise<string[]> {
  const token = tokenValue(config, io);
  const probes = new Map<string, Probe>();
  for (const binding of config.providers) {
    const sends = sendsEnvToken(config, binding);
    if (sends && token === undefined) continue;
    const plan = planProvider(config, binding, topology, io, false);
    for (const entry of plan.entries) {
      const key = `${sends ? "token" : "none"} ${entry.url}`;
      const probe = probes.get(key) ?? {
        url: entry.url,
        token: sends ? token : undefined,
        bindings: [],
      };
      if (!probe.bindings.includes(binding)) probe.bindings.push(binding);
      probes.set(key, probe);
    }
  }
  const out: string[] = [];
  for (const probe of probes.values()) {
    const headers: Record<string, string> = probe.token
      ? { Authorization: `Bearer ${probe.token}` }
      : {};
    try {
      const session = await openMcpSession(probe.url, headers, io.fetch);
      await session.close();
    } catch (err) {
      // The agent tool signs in itself (oauth-offer.ts): a 401 to a token-less entry is expected.
      const signsIn = oauth && !config.token_env && probe.token === undefined;
      if (signsIn && err instanceof ProtocolError && err.status === 401) continue;
      out.push(describeRefusal(config, probe, err as ClientError));
    }
  }
  return out;
}
