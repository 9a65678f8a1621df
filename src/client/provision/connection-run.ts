/**
 * Connect's step of a run, per provider binding: its own sections (the cartographer entry, the
 * former MCP files cleared, the instructions block; targets/connection-sections.ts) read, planned,
 * written and recorded in the lockfile by the same engine as the artifacts (plan.ts, apply.ts).
 * The sections are written in order and the first that fails stops the rest: an instructions
 * block never describes an entry that could not be written. The artifacts' records of the
 * binding are kept as they are (lock-parts.ts); they are the artifacts step's (provision.ts).
 */
import type { ClientConfig, ProviderBinding } from "../config.js";
import type { CommandIo } from "../lib/io.js";
import { type ApplyOutcome, applyProvision } from "./apply.js";
import { DirCache } from "./disk.js";
import { joinLock, splitLock } from "./lock-parts.js";
import {
  findBinding,
  lockfilePath,
  serializeLock,
  withBinding,
  writeLockfile,
} from "./lockfile.js";
import { nextBindingLock } from "./next-lock.js";
import { type ProvisionPlan, planProvision, type SectionAction } from "./plan.js";
import { bindingKey, renderContext } from "./provision.js";
import { readSections } from "./read-sections.js";
import { holdRunLock, readLockForRun } from "./run.js";
import type { RenderResult } from "./types.js";

export interface ConnectionRun {
  plan: ProvisionPlan;
  /** Set when written. */
  outcome?: ApplyOutcome;
}

/** Why `a` did not happen (a read error at plan time, a failed write), or undefined. */
export function failureOf(run: ConnectionRun, a: SectionAction): string | undefined {
  return (
    run.outcome?.failed.get(a) ?? (a.kind === "error" ? (a.why ?? "cannot be read") : undefined)
  );
}

/** Plans connect's sections for `binding` and, with `write`, applies and records them. */
export async function runConnection(
  io: CommandIo,
  config: ClientConfig,
  binding: ProviderBinding,
  render: RenderResult,
  write: boolean,
): Promise<ConnectionRun> {
  const runLock = write ? await holdRunLock(io, 30_000) : undefined;
  try {
    const lock = await readLockForRun(io, write, { notes: [] });
    const key = bindingKey(renderContext(io, config, binding), binding.name);
    const { artifacts, connection } = splitLock(findBinding(lock, key));
    const anchors = [key.dir, io.home];
    const sections = await readSections(
      render.sections,
      render.roots,
      new DirCache(anchors),
      anchors,
    );
    const plan = planProvision({
      render,
      lock: { ...key, revisions: {}, files: [], sections: connection, dirs: [] },
      disk: new Map(),
      sections,
      force: false,
    });
    if (!write) return { plan };
    // Nothing after a section that cannot be read is written (nor recorded as written).
    const stop = plan.sections.findIndex((a) => a.kind === "error");
    const applied = stop < 0 ? plan.sections : plan.sections.slice(0, stop);
    const outcome = await applyProvision(
      { files: [], sections: applied },
      render.roots,
      key.dir,
      anchors,
      true,
    );
    for (const a of plan.sections.slice(applied.length + 1))
      outcome.failed.set(a, "not written: an earlier file of the provider failed");
    const ours = nextBindingLock({ key, plan, outcome, revisions: {}, dirs: [] })?.sections ?? [];
    const next = withBinding(lock, key, joinLock(key, artifacts, ours));
    if (serializeLock(next) !== serializeLock(lock))
      await writeLockfile(lockfilePath(io.home), next);
    return { plan, outcome };
  } finally {
    await runLock?.release();
  }
}
