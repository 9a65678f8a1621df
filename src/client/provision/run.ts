/**
 * A provisioning run over several provider bindings: reads the lockfile once, runs each binding
 * (provision.ts), and — when writing — records the result in the lockfile once (only when it
 * changed: an unchanged sync rewrites nothing, not even the lockfile). A binding that fails (a
 * target that cannot render) fails alone; the others are still applied and recorded.
 */
import { isKbError } from "../../kb/errors.js";
import { acquireProcessLock, type HeldLock } from "../../kb/process-lock.js";
import { type CommandIo, loggerFor, tilde } from "../commands/io.js";
import type { ClientConfig, ProviderBinding } from "../config.js";
import { ConfigError } from "../errors.js";
import {
  type Lockfile,
  lockfilePath,
  readLockfile,
  serializeLock,
  withBinding,
  writeLockfile,
} from "./lockfile.js";
import { type BindingRun, type Prepared, type RunOptions, runBinding } from "./provision.js";
import type { HeldArtifact } from "./types.js";

export interface ProvisionResult {
  runs: BindingRun[];
  /** Held artifacts over all bindings, each once. */
  held: HeldArtifact[];
  /** Targets' notes, each once. */
  notes: string[];
  /** Bindings that failed as a whole: provider → message. */
  errors: { provider: string; message: string }[];
  skipped?: string;
}

const EMPTY: Prepared = {
  serverKbs: [],
  manifests: new Map(),
  decision: { accepted: [], held: [] },
};

/**
 * Two writing runs at once (two agent tools starting with the bootstrap hook) would each save
 * the lockfile from their own reading and drop the other's records: a writing run holds
 * `<lockfile>.lock` (src/kb/process-lock.ts; a dead holder's lock is taken over), waiting up to
 * `waitMs` for another run to finish.
 */
async function holdRunLock(io: CommandIo, waitMs: number): Promise<HeldLock> {
  const file = `${lockfilePath(io.home)}.lock`;
  const opts = {
    label: "provisioning",
    purpose: "sync",
    displayPath: tilde(io, file),
    logger: loggerFor(io),
  };
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await acquireProcessLock(file, opts);
    } catch (err) {
      if (!isKbError(err) || err.code !== "locked") throw err;
      if (Date.now() >= deadline) throw new ConfigError(`${err.message}; nothing was written`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function readLock(io: CommandIo): Promise<Lockfile> {
  const file = lockfilePath(io.home);
  return readLockfile(file, tilde(io, file));
}

/**
 * Runs `bindings` against the prepared manifests. With `opts.write`, applies and saves the
 * lockfile; otherwise only plans (status). `prepared.skipped` (older server) runs nothing.
 */
export async function provisionBindings(
  io: CommandIo,
  config: ClientConfig,
  bindings: readonly ProviderBinding[],
  prepared: Prepared,
  opts: RunOptions,
): Promise<ProvisionResult> {
  const result: ProvisionResult = { runs: [], held: [], notes: [], errors: [] };
  if (prepared.skipped) return { ...result, skipped: prepared.skipped };
  const runLock = opts.write ? await holdRunLock(io, opts.lockWaitMs ?? 30_000) : undefined;
  try {
    return await runAll(io, config, bindings, prepared, opts, result);
  } finally {
    await runLock?.release();
  }
}

async function runAll(
  io: CommandIo,
  config: ClientConfig,
  bindings: readonly ProviderBinding[],
  prepared: Prepared,
  opts: RunOptions,
  result: ProvisionResult,
): Promise<ProvisionResult> {
  const before = await readLock(io);
  let lock = before;
  const heldSeen = new Map<string, HeldArtifact>();
  const notesSeen = new Set<string>();
  for (const binding of bindings) {
    try {
      const run = await runBinding(io, config, binding, prepared, lock, opts);
      result.runs.push(run);
      if (opts.write) lock = withBinding(lock, run.key, run.next);
      for (const h of run.held) {
        const id = `${h.kb}\0${h.kind}\0${h.name}\0${h.reason}`;
        const seen = heldSeen.get(id);
        if (!seen) {
          const copy = { ...h };
          heldSeen.set(id, copy);
          result.held.push(copy);
        } else if (h.kept) seen.kept = true;
      }
      for (const n of run.notes) {
        const note = `${binding.name}: ${n}`;
        if (!notesSeen.has(note)) result.notes.push(note);
        notesSeen.add(note);
      }
    } catch (err) {
      result.errors.push({
        provider: binding.name,
        message: (err as Error)?.message ?? String(err),
      });
    }
  }
  if (opts.write && serializeLock(lock) !== serializeLock(before)) {
    await writeLockfile(lockfilePath(io.home), lock);
  }
  return result;
}

/** Removes everything of ours for `bindings` (disconnect); offline, no manifest needed. */
export function deprovisionBindings(
  io: CommandIo,
  config: ClientConfig,
  bindings: readonly ProviderBinding[],
  targetFor: RunOptions["targetFor"],
): Promise<ProvisionResult> {
  return provisionBindings(io, config, bindings, EMPTY, {
    write: true,
    force: false,
    targetFor,
    empty: true,
  });
}
