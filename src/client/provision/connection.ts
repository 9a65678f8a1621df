import { promises as fs } from "node:fs";
import path from "node:path";
import { readTextOrNull, writeFileAtomic } from "../atomic-file.js";
import type { ClientConfig, ProviderId, Scope } from "../config.js";
import { ConfigError } from "../errors.js";
import { applyBlock, type KbDigest, removeBlock, renderBlock } from "../instructions.js";
import { type DigestResult, type DigestTarget, describeKbs } from "../kb-digest.js";
import { isBareConfig, removeEmptyDirs } from "../leftovers.js";
import { type CommandIo, tilde } from "../lib/io.js";
import { symlinkEscape } from "../symlink-escape.js";
import { isOwnedEntry } from "../topology.js";
import type { ProviderPlan } from "./provider-plan.js";
import { PROVIDERS, type ProviderAdapter, type ProviderFiles } from "./targets/index.js";

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

/**
 * The folders a provider's files belong to: the user's home, and the project directory of a
 * project binding. A write through a symlink that leaves them is refused (symlink-escape.ts).
 */
export function writeAnchors(io: CommandIo, projectDir?: string): string[] {
  return projectDir === undefined ? [io.home] : [io.home, projectDir];
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
 * Writes one provider: removes every entry name the client may own (both shapes, D187) that
 * the live shape does not reuse, writes the live entries, then the instructions block.
 * `instructions`: each KB's `instructions.md` as the trust gate accepted it (kb → text); a KB
 * without one gets no instructions in the block (docs/decisions.md, Client).
 * In dry-run mode prints what would change and writes nothing.
 */
export async function applyPlan(
  plan: ProviderPlan,
  config: ClientConfig,
  routed: boolean,
  digests: DigestCache,
  io: CommandIo,
  dryRun: boolean,
  instructions: ReadonlyMap<string, string> = new Map(),
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

function withInstructions(kb: KbDigest, instructions: ReadonlyMap<string, string>): KbDigest {
  const { instructions: _fromServer, ...rest } = kb;
  const text = instructions.get(kb.name);
  return text === undefined ? rest : { ...rest, instructions: text };
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
  const text = await readTextOrNull(files.config);
  const present = adapter.listEntries(text, files.config);
  const owned = [...present]
    .filter(([name, url]) => isOwnedEntry(config.server_name, name, url))
    .map(([name]) => name);
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
  const next = adapter.applyEntries(text, files.config, owned, plan.entries, plan.auth);
  const mode = adapter.fileMode(plan.auth);
  const within = writeAnchors(
    io,
    plan.scope === "project" ? (plan.binding.project_dir ?? io.cwd) : undefined,
  );
  const names = plan.entries.map((e) => `${e.name} → ${e.url}`).join(", ");
  if (dryRun) {
    io.stdout.write(`${adapter.id}: would write ${tilde(io, files.config)}: ${names}\n`);
  } else if (next !== text || mode !== undefined) {
    await writeFileAtomic(files.config, next, { ...(mode !== undefined ? { mode } : {}), within });
    wroteConfig();
    io.stdout.write(`${adapter.id}: wrote ${tilde(io, files.config)}: ${names}\n`);
  } else {
    io.stdout.write(`${adapter.id}: ${tilde(io, files.config)} already in sync\n`);
  }
  if (!dryRun) await clearLegacy(adapter, files, config.server_name, io, within);
  if (plan.auth.literalToken && !dryRun) {
    io.stdout.write(
      `${adapter.id}: the token itself is written in ${tilde(io, files.config)} (this provider cannot reference an env var); the file is mode 0600\n`,
    );
  } else if (!adapter.referencesEnv && config.token_env) {
    warnings.push(
      `${adapter.label} cannot reference $${config.token_env}: no token written to ${tilde(io, files.config)}; pass --write-token to write it (file mode 0600)`,
    );
  }
  const digest = await digestOf(digestTargets(plan, routed));
  warnings.push(...digest.warnings);
  const block = renderBlock({
    serverName: config.server_name,
    provider: adapter.id,
    routed,
    entries: plan.entries,
    ...(digest.tools ? { tools: digest.tools } : {}),
    kbs: digest.kbs,
  });
  const doc = await readTextOrNull(files.instructions);
  const nextDoc = applyBlock(doc, block, config.server_name, adapter.id);
  if (dryRun) {
    io.stdout.write(
      `${adapter.id}: would update the instructions block in ${tilde(io, files.instructions)}\n`,
    );
  } else if (nextDoc !== doc) {
    await writeFileAtomic(files.instructions, nextDoc, { within });
  }
  return warnings;
}

/**
 * Removes the entries the client owns from one MCP file; true when the file changed. A file
 * left with nothing but the empty container is removed, with the folders it leaves empty.
 */
async function removeOwnedEntries(
  adapter: ProviderAdapter,
  file: string,
  serverName: string,
  within: readonly string[],
): Promise<boolean> {
  const text = await readTextOrNull(file);
  if (text === null) return false;
  const owned = [...adapter.listEntries(text, file)]
    .filter(([name, url]) => isOwnedEntry(serverName, name, url))
    .map(([name]) => name);
  if (owned.length === 0) return false;
  const next = adapter.applyEntries(text, file, owned, [], {});
  if (isBareConfig(next)) await removeLeftover(file, next, within);
  else await writeFileAtomic(file, next, { within });
  return true;
}

/**
 * Removes a file of ours that holds nothing else (`rest`), then the folders it leaves empty.
 * A symlinked file (a dotfiles repository) is written through with `rest` instead: removing
 * the link would leave our entries in its target.
 */
async function removeLeftover(
  file: string,
  rest: string,
  within: readonly string[],
): Promise<void> {
  const escaped = symlinkEscape(file, within);
  if (escaped !== undefined) throw new ConfigError(`${escaped}; nothing is removed through it`);
  if ((await fs.lstat(file).catch(() => null))?.isSymbolicLink()) {
    await writeFileAtomic(file, rest, { within });
    return;
  }
  await fs.rm(file, { force: true });
  await removeEmptyDirs(path.dirname(file), within);
}

/** Clears our entries from the provider's former MCP file locations (see legacyConfigs). */
async function clearLegacy(
  adapter: ProviderAdapter,
  files: ProviderFiles,
  serverName: string,
  io: CommandIo,
  within: readonly string[],
): Promise<boolean> {
  let changed = false;
  for (const file of files.legacyConfigs ?? []) {
    if (await removeOwnedEntries(adapter, file, serverName, within)) {
      io.stdout.write(`${adapter.id}: removed its entries from the old ${tilde(io, file)}\n`);
      changed = true;
    }
  }
  return changed;
}

/**
 * Removes every entry the client may own and its instructions block, and the files and
 * folders that leaves empty (leftovers.ts). Idempotent.
 */
export async function removeProvider(
  id: ProviderId,
  scope: Scope,
  serverName: string,
  io: CommandIo,
  projectDir?: string,
): Promise<boolean> {
  const adapter = PROVIDERS[id];
  const files = adapter.paths(scope, io.home, projectDir ?? io.cwd, io.env);
  const within = writeAnchors(io, scope === "project" ? (projectDir ?? io.cwd) : undefined);
  let changed = await removeOwnedEntries(adapter, files.config, serverName, within);
  if (await clearLegacy(adapter, files, serverName, io, within)) changed = true;
  const doc = await readTextOrNull(files.instructions);
  const nextDoc = removeBlock(doc, serverName, id);
  if (doc !== null && nextDoc !== doc) {
    if (nextDoc === null) await removeLeftover(files.instructions, "", within);
    else await writeFileAtomic(files.instructions, nextDoc, { within });
    changed = true;
  }
  return changed;
}
