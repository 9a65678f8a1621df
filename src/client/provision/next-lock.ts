/**
 * The lockfile entry after a run (pure): what is on disk because we put it there. A file or
 * section that was written, or already matched, is recorded with the KB's bytes; one the user
 * edited keeps its old record (so status keeps reporting it and `--force` can restore it); a
 * foreign or blocked path is never recorded (we did not write it); a pruned one is dropped.
 */

import type { ApplyOutcome } from "./apply.js";
import type { BindingKey, BindingLock, LockedFile, LockedSection } from "./lockfile.js";
import { type FileAction, type ProvisionPlan, type SectionAction, WRITES } from "./plan.js";

function fileRecord(a: FileAction, failed: boolean): LockedFile | undefined {
  const desired = a.desired;
  if ((a.kind === "unchanged" || (WRITES.has(a.kind) && !failed)) && desired && a.desiredSha) {
    return { path: a.path, sha256: a.desiredSha, executable: desired.executable, origin: a.origin };
  }
  if (a.kind === "prune" && !failed) return undefined;
  if (a.kind === "gone" || a.kind === "foreign" || a.kind === "blocked") return undefined;
  // edited, orphan, or a write/prune that failed: what we wrote last is still the reference.
  return a.locked;
}

function sectionRecord(a: SectionAction, failed: boolean): LockedSection | undefined {
  const s = a.section;
  if ((a.kind === "unchanged" || (WRITES.has(a.kind) && !failed)) && a.desiredSha) {
    return { file: s.file, id: s.id, sha256: a.desiredSha, origins: [...s.origins] };
  }
  if ((a.kind === "remove" && !failed) || a.kind === "gone" || a.kind === "foreign")
    return undefined;
  return a.locked;
}

export interface NextLockInput {
  key: BindingKey;
  plan: ProvisionPlan;
  /** Absent for a report-only run: then nothing failed and nothing was created. */
  outcome?: ApplyOutcome;
  revisions: Record<string, string>;
  /** Directories still held after pruning (apply's pruneDirs). */
  dirs: string[];
  /** Bound KBs in the yaml's `trust` this run (lockfile.ts BindingLock.trusted). */
  trusted?: string[];
}

export function nextBindingLock(input: NextLockInput): BindingLock | null {
  const failed = input.outcome?.failed ?? new Map();
  const files = input.plan.files
    .map((a) => fileRecord(a, failed.has(a)))
    .filter((f): f is LockedFile => f !== undefined);
  const sections = input.plan.sections
    .map((a) => sectionRecord(a, failed.has(a)))
    .filter((s): s is LockedSection => s !== undefined);
  if (files.length === 0 && sections.length === 0 && input.dirs.length === 0) return null;
  const trusted = input.trusted ?? [];
  return {
    ...input.key,
    revisions: input.revisions,
    files,
    sections,
    dirs: input.dirs,
    ...(trusted.length > 0 ? { trusted } : {}),
  };
}

/** Paths the next lock still holds (directories containing one of them are kept). */
export function heldPaths(plan: ProvisionPlan, outcome: ApplyOutcome | undefined): string[] {
  const failed = outcome?.failed ?? new Map();
  const out: string[] = [];
  for (const a of plan.files)
    if (fileRecord(a, failed.has(a)) || a.kind === "foreign") out.push(a.path);
  for (const a of plan.sections) if (sectionRecord(a, failed.has(a))) out.push(a.section.file);
  return out;
}
