/**
 * The provisioning plan (pure): what a target renders, what the lockfile says we wrote and what
 * the disk holds now → one action per file and per managed section. Nothing here touches disk.
 *
 *   desired  lock   disk                      → action
 *   yes      -      absent                    → create
 *   yes      yes    absent                    → restore      (deleted by hand: drift, sync restores)
 *   yes      any    = desired (bytes + mode)  → unchanged    (never rewritten: mtimes stay)
 *   yes      yes    = lock                    → update       (the KB changed)
 *   yes      yes    ≠ lock, ≠ desired         → edited       (kept and reported; --force: update)
 *   yes      -      ≠ desired                 → foreign      (not ours; kept; --force: update)
 *   any      any    symlink / not a file      → blocked      (never written through, even --force)
 *   no       yes    = lock                    → prune
 *   no       yes    ≠ lock                    → orphan       (kept, stays locked; --force: prune)
 *   no       yes    absent                    → gone         (dropped from the lock)
 *   locked from an artifact held this run      → held         (left as it is, record kept)
 *
 * "Held" (docs/decisions.md "Client"): an artifact the trust gate or a KB collision holds is not
 * materialized this time — whatever of it is already on disk (files, sections, and a shared file
 * or section it is part of, e.g. the hooks registration) is neither rewritten nor pruned.
 */
import type { BindingLock, LockedFile, LockedSection } from "./lockfile.js";
import { sha256Hex } from "./lockfile.js";
import type { DesiredFile, ManagedSection, RenderResult } from "./types.js";

/** What the disk holds at one path (disk.ts reads it without following symlinks). */
export type DiskFile =
  | { state: "absent" }
  | { state: "file"; sha256: string; executable: boolean }
  /** A symlink at the path or above it (below a root), or a directory / special file. */
  | { state: "blocked"; why: string };

/** Our part of a shared file as read now: its canonical text (null = absent), or a parse error. */
export type DiskSection = { state: "ok"; current: string | null } | { state: "error"; why: string };

export type FileActionKind =
  | "create"
  | "restore"
  | "update"
  | "unchanged"
  | "edited"
  | "foreign"
  | "blocked"
  | "prune"
  | "orphan"
  | "gone"
  | "held";

export interface FileAction {
  kind: FileActionKind;
  path: string;
  origin: string;
  desired?: DesiredFile;
  /** sha256 of `desired.bytes`. */
  desiredSha?: string;
  locked?: LockedFile;
  /** --force turned a kept file into an update or a prune. */
  forced?: boolean;
  why?: string;
}

export type SectionActionKind =
  | "create"
  | "restore"
  | "update"
  | "unchanged"
  | "edited"
  | "foreign"
  | "remove"
  | "orphan"
  | "gone"
  | "held"
  | "error";

export interface SectionAction {
  kind: SectionActionKind;
  section: ManagedSection;
  locked?: LockedSection;
  desiredSha?: string;
  forced?: boolean;
  why?: string;
}

export interface ProvisionPlan {
  files: FileAction[];
  sections: SectionAction[];
}

/** Actions that write a desired file or section. */
export const WRITES: ReadonlySet<string> = new Set(["create", "restore", "update"]);
/** Actions that change nothing on disk and need no word in a report (held: said per artifact). */
export const QUIET: ReadonlySet<string> = new Set(["unchanged", "gone", "held"]);
/** Actions that leave something different from the KB on disk because it is the user's. */
export const KEPT: ReadonlySet<string> = new Set(["edited", "foreign", "blocked", "orphan"]);

export interface PlanInput {
  render: RenderResult;
  lock: BindingLock | undefined;
  disk: ReadonlyMap<string, DiskFile>;
  /** Keyed by `sectionKey`. */
  sections: ReadonlyMap<string, DiskSection>;
  force: boolean;
  /** Origins (`<kb>/<kind>/<name>`) of artifacts held this run whose installed copy stays. */
  held?: ReadonlySet<string>;
  /** Origins whose consent was withdrawn (trust or approval revoked): why a prune happens. */
  revoked?: ReadonlyMap<string, string>;
}

/** A generated file of several artifacts records them comma-joined (the OpenCode plugin). */
const originsOf = (origin: string) => origin.split(",");
const touches = (origins: readonly string[], set: ReadonlySet<string> | undefined) =>
  set !== undefined && set.size > 0 && origins.some((o) => set.has(o));
const revokedWhy = (origins: readonly string[], map: ReadonlyMap<string, string> | undefined) =>
  origins.map((o) => map?.get(o)).find((w) => w !== undefined);

export const sectionKey = (file: string, id: string) => `${file}\0${id}`;

function planFile(
  desired: DesiredFile | undefined,
  locked: LockedFile | undefined,
  disk: DiskFile,
  input: PlanInput,
): FileAction {
  const force = input.force;
  const path = (desired?.path ?? locked?.path) as string;
  const origin = desired?.origin ?? locked?.origin ?? "";
  const base: FileAction = { kind: "unchanged", path, origin };
  if (desired) {
    base.desired = desired;
    base.desiredSha = sha256Hex(desired.bytes);
  }
  if (locked) base.locked = locked;
  if (locked && touches(originsOf(locked.origin), input.held)) return { ...base, kind: "held" };
  const why = locked ? revokedWhy(originsOf(locked.origin), input.revoked) : undefined;
  if (disk.state === "blocked") return { ...base, kind: "blocked", why: disk.why };
  if (desired) {
    if (disk.state === "absent") return { ...base, kind: locked ? "restore" : "create" };
    if (disk.sha256 === base.desiredSha && disk.executable === desired.executable) return base;
    if (locked && disk.sha256 === locked.sha256 && disk.executable === locked.executable)
      return { ...base, kind: "update" };
    const kept = locked ? "edited" : "foreign";
    return force ? { ...base, kind: "update", forced: true } : { ...base, kind: kept };
  }
  if (disk.state === "absent") return { ...base, kind: "gone" };
  const ours = disk.sha256 === locked?.sha256;
  if (why) base.why = why;
  if (ours) return { ...base, kind: "prune" };
  return force ? { ...base, kind: "prune", forced: true } : { ...base, kind: "orphan" };
}

function planSection(
  section: ManagedSection,
  locked: LockedSection | undefined,
  disk: DiskSection | undefined,
  input: PlanInput,
): SectionAction | undefined {
  const force = input.force;
  const base: SectionAction = { kind: "unchanged", section };
  if (locked) base.locked = locked;
  if (section.desired !== null) base.desiredSha = sha256Hex(section.desired);
  if (section.converge) return planConverge(base, disk);
  if (section.desired === null && !locked) return undefined;
  if (locked && touches(locked.origins, input.held)) return { ...base, kind: "held" };
  const why = locked ? revokedWhy(locked.origins, input.revoked) : undefined;
  if (why && section.desired === null) base.why = why;
  if (!disk || disk.state === "error") return { ...base, kind: "error", why: disk?.why ?? "" };
  const current = disk.current === null ? null : sha256Hex(disk.current);
  if (section.desired !== null) {
    if (current === base.desiredSha) return base;
    if (current === null) return { ...base, kind: locked ? "restore" : "create" };
    if (locked && current === locked.sha256) return { ...base, kind: "update" };
    const kept = locked ? "edited" : "foreign";
    return force ? { ...base, kind: "update", forced: true } : { ...base, kind: kept };
  }
  if (current === null) return { ...base, kind: "gone" };
  if (current === locked?.sha256) return { ...base, kind: "remove" };
  return force ? { ...base, kind: "remove", forced: true } : { ...base, kind: "orphan" };
}

/** Connect's own part: made to match, whatever the disk holds (types.ts `converge`). */
function planConverge(
  base: SectionAction,
  disk: DiskSection | undefined,
): SectionAction | undefined {
  if (!disk || disk.state === "error") return { ...base, kind: "error", why: disk?.why ?? "" };
  const current = disk.current === null ? null : sha256Hex(disk.current);
  if (base.desiredSha !== undefined) {
    if (current === base.desiredSha) return base;
    if (current !== null) return { ...base, kind: "update" };
    return { ...base, kind: base.locked ? "restore" : "create" };
  }
  if (current !== null) return { ...base, kind: "remove" };
  return base.locked ? { ...base, kind: "gone" } : undefined;
}

/** The plan for one provider binding. Files in path order; every locked path is covered. */
export function planProvision(input: PlanInput): ProvisionPlan {
  const { render, lock, disk } = input;
  const lockedFiles = new Map((lock?.files ?? []).map((f) => [f.path, f]));
  const desired = new Map(render.files.map((f) => [f.path, f]));
  const paths = [...new Set([...desired.keys(), ...lockedFiles.keys()])].sort();
  const files = paths.map((p) =>
    planFile(desired.get(p), lockedFiles.get(p), disk.get(p) ?? { state: "absent" }, input),
  );
  const lockedSections = new Map((lock?.sections ?? []).map((s) => [sectionKey(s.file, s.id), s]));
  const sections: SectionAction[] = [];
  const rendered = new Set<string>();
  for (const s of render.sections) {
    const key = sectionKey(s.file, s.id);
    rendered.add(key);
    const action = planSection(s, lockedSections.get(key), input.sections.get(key), input);
    if (action) sections.push(action);
  }
  // A locked section the target no longer renders at all cannot be edited without its
  // read/write pair: it is forgotten (reported), never guessed at.
  for (const [key, locked] of lockedSections) {
    if (rendered.has(key)) continue;
    sections.push({
      kind: "gone",
      locked,
      section: orphanSection(locked),
      why: "the provider no longer renders this section; left as it is",
    });
  }
  return { files, sections };
}

function orphanSection(locked: LockedSection): ManagedSection {
  return {
    file: locked.file,
    id: locked.id,
    desired: null,
    origins: locked.origins,
    read: () => null,
    write: (text) => text ?? "",
  };
}
