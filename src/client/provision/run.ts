/**
 * A provisioning run over several provider bindings: reads the lockfile once, runs each binding
 * (provision.ts), and — when writing — records the result in the lockfile once (only when it
 * changed: an unchanged sync rewrites nothing, not even the lockfile). A binding that fails (a
 * target that cannot render) fails alone; the others are still applied and recorded.
 */
import { isKbError } from "../../common/errors.js";
import { acquireProcessLock, type HeldLock } from "../../common/process-lock.js";
import type { ClientConfig, ProviderBinding } from "../config.js";
import { ConfigError } from "../errors.js";
import { type CommandIo, loggerFor, tilde } from "../lib/io.js";
import { GO_LOCKFILE_ASIDE, moveGoLockfileAside } from "./go-lockfile.js";
import {
  type BindingLock,
  type Lockfile,
  lockfilePath,
  readLockfile,
  readLockfileState,
  serializeLock,
  withBinding,
  writeLockfile,
} from "./lockfile.js";
import { orphanedLocks } from "./orphans.js";
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
  /** Lock entries no saved provider owns (a provider removed from the yaml by hand; orphans.ts). */
  orphaned?: BindingLock[];
}

const EMPTY: Prepared = {
  serverKbs: [],
  manifests: new Map(),
  decision: { accepted: [], held: [] },
};

/**
 * Two writing runs at once (two agent tools starting with the bootstrap hook) would each save
 * the lockfile from their own reading and drop the other's records: a writing run holds
 * `<lockfile>.lock` (src/common/process-lock.ts; a dead holder's lock is taken over), waiting up to
 * `waitMs` for another run to finish.
 */
export async function holdRunLock(io: CommandIo, waitMs: number): Promise<HeldLock> {
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

/** What a migrating user is told once about the Go client's lockfile (docs/migrating-from-go.md). */
function goLockMessage(io: CommandIo, movedTo: string | null): string {
  const file = tilde(io, lockfilePath(io.home));
  const where = movedTo
    ? `moved it to ${tilde(io, movedTo)} (kept, not read again) and started a new lockfile`
    : `cartographer sync moves it to ~/${GO_LOCKFILE_ASIDE} and starts a new lockfile`;
  return `${file} was written by the Go implementation's client; ${where}. Files the Go client wrote are treated as yours: kept and reported when they differ from the KB (sync --force overwrites them), adopted when identical to what cartographer writes. To remove what the Go client provisioned (its hook folders and registrations, MCP entries, instructions blocks), run the Go client's cartographer disconnect (docs/migrating-from-go.md)`;
}

/**
 * Reads the lockfile for a run. A Go client's lockfile reads as empty: a writing run moves it
 * aside (never deleting it) and warns once; a report-only run adds a note and touches nothing.
 */
export async function readLockForRun(
  io: CommandIo,
  write: boolean,
  result: Pick<ProvisionResult, "notes">,
): Promise<Lockfile> {
  const file = lockfilePath(io.home);
  const { lock, go } = await readLockfileState(file, tilde(io, file));
  if (!go) return lock;
  if (!write) {
    result.notes.push(goLockMessage(io, null));
    return lock;
  }
  const moved = await moveGoLockfileAside(file, io.home);
  loggerFor(io).warn(goLockMessage(io, moved));
  return lock;
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
  const before = await readLockForRun(io, opts.write, result);
  if (!opts.empty) {
    const orphaned = orphanedLocks(io, config, before, bindings);
    if (orphaned.length > 0) result.orphaned = orphaned;
  }
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
