/**
 * The provisioning lockfile, `~/.cartographer-sync.lock.json`: what the engine wrote, so that a
 * later run can tell our bytes from the user's (edited → kept), restore what was deleted by
 * hand, and prune only what it wrote. One entry per provider binding (provider + scope + the
 * directory the scope is anchored at), so a user and a project binding never share records.
 *
 * Written atomically with mode 0600 (it lists paths of the user's projects). A lockfile that does
 * not parse is an error naming the file and the fix; deleting it is safe: every existing file
 * that differs from the KB is then treated as the user's and kept unless `--force`.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { readTextOrNull, writeFileAtomic } from "../atomic-file.js";
import { isProviderId, type ProviderId, type Scope } from "../config.js";
import { ConfigError } from "../errors.js";
import { isGoLockfile } from "./go-lockfile.js";

export const LOCKFILE_NAME = ".cartographer-sync.lock.json";
export const LOCK_VERSION = 1;

/** A whole file the engine wrote. */
export interface LockedFile {
  /** Absolute path. */
  path: string;
  /** sha256 hex of the bytes written. */
  sha256: string;
  executable: boolean;
  /** `<kb>/<kind>/<name>` of the artifact it came from. */
  origin: string;
}

/** Our part of a shared file, as last written. */
export interface LockedSection {
  file: string;
  id: string;
  /** sha256 hex of the section's canonical text. */
  sha256: string;
  origins: string[];
}

/** One provider binding's records. */
export interface BindingLock {
  provider: ProviderId;
  scope: Scope;
  /** `$HOME` for a user binding, the project directory for a project binding. */
  dir: string;
  /** The manifest revision applied, per KB. */
  revisions: Record<string, string>;
  files: LockedFile[];
  sections: LockedSection[];
  /** Directories the engine created (pruning removes them once empty, never a root). */
  dirs: string[];
  /**
   * Bound KBs that were in the yaml's `trust` at the last run: their unsigned artifacts were
   * written under that consent, so once it is withdrawn the next sync removes them (a copy
   * written under `--auto-trust` only is kept while held). Absent = none.
   */
  trusted?: string[];
}

export interface Lockfile {
  version: typeof LOCK_VERSION;
  bindings: BindingLock[];
}

export function lockfilePath(home: string): string {
  return path.join(home, LOCKFILE_NAME);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export function emptyLockfile(): Lockfile {
  return { version: LOCK_VERSION, bindings: [] };
}

export interface BindingKey {
  provider: ProviderId;
  scope: Scope;
  dir: string;
}

const sameKey = (a: BindingKey, b: BindingKey) =>
  a.provider === b.provider && a.scope === b.scope && a.dir === b.dir;

export function findBinding(lock: Lockfile, key: BindingKey): BindingLock | undefined {
  return lock.bindings.find((b) => sameKey(b, key));
}

/** A copy of `lock` with `key`'s entry replaced by `next` (or removed when `next` is null). */
export function withBinding(lock: Lockfile, key: BindingKey, next: BindingLock | null): Lockfile {
  const bindings = lock.bindings.filter((b) => !sameKey(b, key));
  if (next) bindings.push(next);
  bindings.sort((a, b) =>
    `${a.provider}\0${a.scope}\0${a.dir}` < `${b.provider}\0${b.scope}\0${b.dir}` ? -1 : 1,
  );
  return { version: LOCK_VERSION, bindings };
}

const HEX64 = /^[0-9a-f]{64}$/;
const isStr = (v: unknown): v is string => typeof v === "string";
const isAbs = (v: unknown): v is string => isStr(v) && path.isAbsolute(v);

function checkFile(v: unknown): LockedFile {
  const f = v as LockedFile;
  if (!isAbs(f?.path) || !isStr(f.sha256) || !HEX64.test(f.sha256))
    throw new Error("a files[] item needs an absolute path and a sha256");
  if (typeof f.executable !== "boolean" || !isStr(f.origin))
    throw new Error(`files[] ${f.path}: executable (boolean) and origin (string) are required`);
  return { path: f.path, sha256: f.sha256, executable: f.executable, origin: f.origin };
}

function checkSection(v: unknown): LockedSection {
  const s = v as LockedSection;
  if (!isAbs(s?.file) || !isStr(s.id) || !isStr(s.sha256) || !HEX64.test(s.sha256))
    throw new Error("a sections[] item needs an absolute file, an id and a sha256");
  if (!Array.isArray(s.origins) || !s.origins.every(isStr))
    throw new Error(`sections[] ${s.file} ${s.id}: origins must be a list of strings`);
  return { file: s.file, id: s.id, sha256: s.sha256, origins: [...s.origins] };
}

function checkBinding(v: unknown): BindingLock {
  const b = v as BindingLock;
  if (!isStr(b?.provider) || !isProviderId(b.provider))
    throw new Error("a bindings[] item has no known provider");
  if (b.scope !== "user" && b.scope !== "project")
    throw new Error(`${b.provider}: scope must be user or project`);
  if (!isAbs(b.dir)) throw new Error(`${b.provider}: dir must be an absolute path`);
  const revisions = b.revisions ?? {};
  if (typeof revisions !== "object" || Object.values(revisions).some((r) => !isStr(r)))
    throw new Error(`${b.provider}: revisions must map a KB to a revision`);
  if (!Array.isArray(b.files) || !Array.isArray(b.sections) || !Array.isArray(b.dirs ?? []))
    throw new Error(`${b.provider}: files, sections and dirs must be lists`);
  const dirs = (b.dirs ?? []) as unknown[];
  if (!dirs.every(isAbs)) throw new Error(`${b.provider}: dirs must be absolute paths`);
  const trusted = (b.trusted ?? []) as unknown[];
  if (!Array.isArray(trusted) || !trusted.every(isStr))
    throw new Error(`${b.provider}: trusted must be a list of KB names`);
  return {
    provider: b.provider,
    scope: b.scope,
    dir: b.dir,
    revisions: { ...revisions },
    files: b.files.map(checkFile),
    sections: b.sections.map(checkSection),
    dirs: dirs as string[],
    ...(trusted.length > 0 ? { trusted: trusted as string[] } : {}),
  };
}

/** Parses lockfile text; throws a plain Error naming what is wrong (readLockfile words it). */
export function parseLockfile(text: string): Lockfile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON (${(err as Error).message})`);
  }
  const obj = raw as { version?: unknown; bindings?: unknown };
  if (obj === null || typeof obj !== "object" || Array.isArray(obj))
    throw new Error("the top level must be an object");
  if (obj.version !== LOCK_VERSION)
    throw new Error(`version ${JSON.stringify(obj.version)} is not ${LOCK_VERSION}`);
  if (!Array.isArray(obj.bindings)) throw new Error("bindings must be a list");
  return { version: LOCK_VERSION, bindings: obj.bindings.map(checkBinding) };
}

/**
 * Reads the lockfile; a missing one is empty. `shown` is the name to print (tilde-shortened).
 * @throws ConfigError naming the file and the fix when it does not parse.
 */
export async function readLockfile(file: string, shown = file): Promise<Lockfile> {
  return (await readLockfileState(file, shown)).lock;
}

/**
 * As readLockfile, and says whether the file is the Go client's (go-lockfile.ts): its records
 * are not ours, so the lock reads as empty and the caller moves the file aside (writing runs)
 * or notes it (status, doctor).
 */
export async function readLockfileState(
  file: string,
  shown = file,
): Promise<{ lock: Lockfile; go: boolean }> {
  const text = await readTextOrNull(file);
  if (text === null) return { lock: emptyLockfile(), go: false };
  try {
    if (isGoLockfile(JSON.parse(text))) return { lock: emptyLockfile(), go: true };
  } catch {
    // Not JSON: parseLockfile words the error.
  }
  try {
    return { lock: parseLockfile(text), go: false };
  } catch (err) {
    throw new ConfigError(
      `${shown} is not a valid provisioning lockfile: ${(err as Error).message}; nothing was written. Delete it and run cartographer sync: files that differ from the KB are then kept as yours and reported (sync --force overwrites them)`,
    );
  }
}

/** The lockfile's text in a stable order (diff-friendly; equal content gives equal text). */
export function serializeLock(lock: Lockfile): string {
  const sorted: Lockfile = {
    version: LOCK_VERSION,
    bindings: lock.bindings.map((b) => ({
      provider: b.provider,
      scope: b.scope,
      dir: b.dir,
      revisions: Object.fromEntries(
        Object.entries(b.revisions).sort(([x], [y]) => (x < y ? -1 : 1)),
      ),
      files: [...b.files].sort((x, y) => (x.path < y.path ? -1 : 1)),
      sections: [...b.sections].sort((x, y) =>
        `${x.file}\0${x.id}` < `${y.file}\0${y.id}` ? -1 : 1,
      ),
      dirs: [...b.dirs].sort(),
      ...(b.trusted && b.trusted.length > 0 ? { trusted: [...b.trusted].sort() } : {}),
    })),
  };
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

/** Writes the lockfile atomically, mode 0600. */
export async function writeLockfile(file: string, lock: Lockfile): Promise<void> {
  await writeFileAtomic(file, serializeLock(lock), { mode: 0o600 });
}
