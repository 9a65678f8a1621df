/**
 * A binding's lock entry holds two parts written by two steps of one run: connect's own sections
 * (the cartographer entry, the instructions block; targets/connection-sections.ts) and the
 * artifacts' files and sections. Each step plans against its part and keeps the other's records
 * as they are; connect's records always come last, so the entry's bytes do not depend on which
 * step wrote it last (an unchanged run rewrites nothing, not even the lockfile).
 */
import type { BindingKey, BindingLock, LockedSection } from "./lockfile.js";
import { isConnectionSection } from "./targets/connection-sections.js";

export interface LockParts {
  /** The artifacts' records; undefined when there are none (as a binding never provisioned). */
  artifacts: BindingLock | undefined;
  connection: LockedSection[];
}

export function splitLock(whole: BindingLock | undefined): LockParts {
  if (!whole) return { artifacts: undefined, connection: [] };
  const connection = whole.sections.filter(isConnectionSection);
  const sections = whole.sections.filter((s) => !isConnectionSection(s));
  const empty = whole.files.length === 0 && sections.length === 0 && whole.dirs.length === 0;
  return { artifacts: empty ? undefined : { ...whole, sections }, connection };
}

/** The whole entry again; null when neither part holds a record. */
export function joinLock(
  key: BindingKey,
  artifacts: BindingLock | null | undefined,
  connection: readonly LockedSection[],
): BindingLock | null {
  if (!artifacts) {
    if (connection.length === 0) return null;
    return { ...key, revisions: {}, files: [], sections: [...connection], dirs: [] };
  }
  return { ...artifacts, sections: [...artifacts.sections, ...connection] };
}
