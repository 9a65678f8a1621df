/**
 * Connect's own part of a provider, through the provisioning engine (connection-run.ts): the
 * cartographer entries, the provider's former MCP files cleared of ours, the instructions block
 * describing the KBs — written, checked against symlinks and recorded in the lockfile like the
 * artifacts, and reported in connect's own words.
 */
import { readTextOrNull } from "../atomic-file.js";
import type { ClientConfig, ProviderBinding } from "../config.js";
import { type KbDigest, renderBlock } from "../instructions.js";
import { type DigestResult, type DigestTarget, describeKbs } from "../kb-digest.js";
import { type CommandIo, tilde } from "../lib/io.js";
import type { KbInstructions } from "../repos/expand-instructions.js";
import { type ConnectionRun, failureOf, runConnection } from "./connection-run.js";
import { type SectionAction, WRITES } from "./plan.js";
import { type ProviderPlan, providerFiles } from "./provider-plan.js";
import {
  BLOCK_SECTION,
  type ConnectionSpec,
  connectionRender,
  ENTRY_SECTION,
} from "./targets/connection-sections.js";

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The MCP targets that describe a plan's KBs (one URL on a routed server, one per KB else). */
export function digestTargets(plan: ProviderPlan, routed: boolean): DigestTarget[] {
  if (routed) {
    const entry = plan.entries[0];
    if (!entry) return [];
    return plan.kbs.map((kb) => ({
      kb,
      entry: entry.name,
      url: entry.url,
      ...(plan.kbs.length > 1 ? { kbArg: kb } : {}),
    }));
  }
  return plan.kbs.map((kb, i) => {
    const entry = plan.entries[i] ?? { name: "", url: "" };
    return { kb, entry: entry.name, url: entry.url };
  });
}

export function bearerHeaders(config: ClientConfig, io: CommandIo): Record<string, string> {
  const token = config.token_env ? io.env[config.token_env] : undefined;
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** Describes each distinct target set once per command run. */
export class DigestCache {
  private readonly cache = new Map<string, Promise<DigestResult>>();
  constructor(
    private readonly headers: Record<string, string>,
    private readonly io: CommandIo,
  ) {}
  get(targets: DigestTarget[]): Promise<DigestResult> {
    const key = JSON.stringify(targets);
    let hit = this.cache.get(key);
    if (!hit) {
      hit = describeKbs(targets, this.headers, this.io.fetch);
      this.cache.set(key, hit);
    }
    return hit;
  }
}

/** A provider that failed; `touched` when its MCP file was already written (keep it in the yaml). */
export class ProviderFailure extends Error {
  constructor(
    readonly reason: unknown,
    readonly touched: boolean,
  ) {
    super((reason as Error)?.message ?? String(reason));
    this.name = "ProviderFailure";
  }
}

/**
 * Writes one provider's connect part: every entry name the client may own (both shapes, D187)
 * that the live shape does not reuse removed, the live entries written, the former MCP files
 * cleared of ours, then the instructions block. `instructions`: each KB's `instructions.md` as
 * the trust gate accepted it, its placeholders expanded (kb → text, repos/expand-instructions.ts);
 * a KB without one gets no instructions in the block (docs/decisions.md, Client). In dry-run mode prints what would change and writes nothing.
 */
export async function applyPlan(
  plan: ProviderPlan,
  config: ClientConfig,
  routed: boolean,
  digests: DigestCache,
  io: CommandIo,
  dryRun: boolean,
  instructions: ReadonlyMap<string, KbInstructions> = new Map(),
): Promise<string[]> {
  let touched = false;
  try {
    const digestOf = async (targets: DigestTarget[]): Promise<DigestResult> => {
      const digest = await digests.get(targets);
      return { ...digest, kbs: digest.kbs.map((k) => withInstructions(k, instructions)) };
    };
    return await applyPlanSteps(plan, config, routed, digestOf, io, dryRun, () => {
      touched = true;
    });
  } catch (err) {
    throw new ProviderFailure(err, touched);
  }
}

function withInstructions(
  kb: KbDigest,
  instructions: ReadonlyMap<string, KbInstructions>,
): KbDigest {
  const { instructions: _fromServer, ...rest } = kb;
  const accepted = instructions.get(kb.name);
  if (accepted === undefined) return rest;
  const { text, localPaths } = accepted;
  return { ...rest, instructions: text, ...(localPaths.size > 0 ? { localPaths } : {}) };
}

/** Connect's action for section `id` of `file` in a run. */
function actionOf(run: ConnectionRun, file: string, id: string): SectionAction | undefined {
  return run.plan.sections.find((a) => a.section.file === file && a.section.id === id);
}

/** Throws why `a` did not happen, if it did not. */
function mustHaveHappened(run: ConnectionRun, a: SectionAction | undefined): void {
  const why = a && failureOf(run, a);
  if (why !== undefined) throw new Error(why);
}

/**
 * The entries the file holds now (name → URL), for the warning about replacing one; empty when
 * it cannot be read or parsed — the plan reports that.
 */
async function presentEntries(plan: ProviderPlan): Promise<Map<string, string | undefined>> {
  try {
    const text = await readTextOrNull(plan.files.config);
    return plan.adapter.listEntries(text, plan.files.config);
  } catch {
    return new Map();
  }
}

async function applyPlanSteps(
  plan: ProviderPlan,
  config: ClientConfig,
  routed: boolean,
  digestOf: (targets: DigestTarget[]) => Promise<DigestResult>,
  io: CommandIo,
  dryRun: boolean,
  wroteConfig: () => void,
): Promise<string[]> {
  const warnings: string[] = [];
  const { adapter, files } = plan;
  const present = await presentEntries(plan);
  for (const entry of plan.entries) {
    // The name is ours, but an entry someone wrote for another server (or a local command)
    // deserves a word before it is pointed here.
    if (!present.has(entry.name)) continue;
    const old = present.get(entry.name);
    if (old === undefined || originOf(old) !== originOf(entry.url)) {
      warnings.push(
        `${dryRun ? "would replace" : "replaced"} entry "${entry.name}" in ${tilde(io, files.config)}, which pointed at ${old ?? "no URL (a local command)"}`,
      );
    }
  }
  const digest = await digestOf(digestTargets(plan, routed));
  const block = renderBlock({
    serverName: config.server_name,
    provider: adapter.id,
    routed,
    entries: plan.entries,
    ...(digest.tools ? { tools: digest.tools } : {}),
    kbs: digest.kbs,
  });
  const spec: ConnectionSpec = {
    provider: adapter,
    files,
    serverName: config.server_name,
    entries: plan.entries,
    auth: plan.auth,
    block,
  };
  const run = await runConnection(io, config, plan.binding, connectionRender(spec), !dryRun);
  const entry = actionOf(run, files.config, ENTRY_SECTION);
  mustHaveHappened(run, entry);
  const names = plan.entries.map((e) => `${e.name} → ${e.url}`).join(", ");
  if (dryRun) {
    io.stdout.write(`${adapter.id}: would write ${tilde(io, files.config)}: ${names}\n`);
  } else if (entry && WRITES.has(entry.kind)) {
    wroteConfig();
    io.stdout.write(`${adapter.id}: wrote ${tilde(io, files.config)}: ${names}\n`);
  } else {
    io.stdout.write(`${adapter.id}: ${tilde(io, files.config)} already in sync\n`);
  }
  for (const file of dryRun ? [] : (files.legacyConfigs ?? [])) {
    const legacy = actionOf(run, file, ENTRY_SECTION);
    mustHaveHappened(run, legacy);
    if (legacy?.kind === "remove")
      io.stdout.write(`${adapter.id}: removed its entries from the old ${tilde(io, file)}\n`);
  }
  if (plan.auth.literalToken && !dryRun) {
    io.stdout.write(
      `${adapter.id}: the token itself is written in ${tilde(io, files.config)} (this provider cannot reference an env var); the file is mode 0600\n`,
    );
  } else if (!adapter.referencesEnv && config.token_env) {
    warnings.push(
      `${adapter.label} cannot reference $${config.token_env}: no token written to ${tilde(io, files.config)}; pass --write-token to write it (file mode 0600)`,
    );
  }
  warnings.push(...digest.warnings);
  mustHaveHappened(run, actionOf(run, files.instructions, BLOCK_SECTION));
  if (dryRun) {
    io.stdout.write(
      `${adapter.id}: would update the instructions block in ${tilde(io, files.instructions)}\n`,
    );
  }
  return warnings;
}

/**
 * Removes every entry the client may own (from the MCP file and its former places) and its
 * instructions block, and the files and folders that leaves empty (leftovers.ts), through the
 * engine. Idempotent; true when something was removed. Throws the first failure.
 */
export async function removeProvider(
  io: CommandIo,
  config: ClientConfig,
  binding: ProviderBinding,
): Promise<boolean> {
  const { adapter, files } = providerFiles(binding, io);
  const spec: ConnectionSpec = {
    provider: adapter,
    files,
    serverName: config.server_name,
    entries: [],
    auth: {},
    block: null,
  };
  const run = await runConnection(io, config, binding, connectionRender(spec), true);
  for (const a of run.plan.sections) mustHaveHappened(run, a);
  return run.plan.sections.some((a) => a.kind === "remove");
}
