/**
 * An exclusive lock across processes: a small JSON file naming its holder (pid, host, start
 * time), created atomically with link(2) from a fully written temp file, so a lock file is never
 * seen half written (link also works on NFS, where O_EXCL historically did not). A filesystem
 * without hard links gets an O_EXCL create instead.
 *
 * A lock whose holder died is taken over (docs/operations.md "Locks"): same host and the pid is
 * not running, or runs a different process (pid reused: its start time differs), or is this very
 * process from an earlier life (a container restarted as pid 1). A lock held from another host
 * is never taken over: that host may be alive, so the caller is refused, with the holder named.
 *
 * Used for the per-KB write lock (kb-lock.ts) and the audit-log lock (audit/log-lock.ts).
 */
import { randomBytes } from "node:crypto";
import { readFileSync, unlinkSync } from "node:fs";
import { link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import type { Logger } from "../logger.js";
import { KbError } from "./errors.js";

/** What a lock file records about its holder. */
export interface LockHolder {
  pid: number;
  host: string;
  /** What holds it, e.g. `serve` or `reindex`. */
  purpose: string;
  /** When the lock was taken (ISO-8601 UTC). */
  acquired_at: string;
  /** /proc/<pid>/stat start time (clock ticks since boot) on Linux: tells a reused pid apart. */
  pid_start?: string;
  /** Random per acquisition: release removes the file only while it is still this one. */
  nonce: string;
}

export interface HeldLock {
  readonly holder: LockHolder;
  /** Removes the lock file if it is still ours. Idempotent; never throws. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** What the lock protects, for messages, e.g. `KB 'notes'` (never an absolute path). */
  label: string;
  purpose: string;
  /** The lock file relative to something the operator knows, for the "delete it" hint. */
  displayPath: string;
  logger: Logger;
}

/** Lock files this process holds, by path: a second acquisition in-process is refused too. */
const heldHere = new Map<string, LockHolder>();
let exitHookInstalled = false;

/**
 * Takes the lock at `file`, or throws KbError `locked` naming the holder (pid, host, purpose,
 * since when). A stale lock (see the module header) is taken over with a warning.
 */
export async function acquireProcessLock(file: string, opts: AcquireOptions): Promise<HeldLock> {
  const mine: LockHolder = {
    pid: process.pid,
    host: hostname(),
    purpose: opts.purpose,
    acquired_at: new Date().toISOString(),
    ...withPidStart(pidStart(process.pid)),
    nonce: randomBytes(8).toString("hex"),
  };
  const held = heldHere.get(file);
  if (held) throw lockedError(opts, held, "this process already holds it");
  // Claimed before the first await: a concurrent acquisition in this process is refused above.
  heldHere.set(file, mine);
  try {
    return await acquire(file, mine, opts);
  } catch (err) {
    heldHere.delete(file);
    throw err;
  }
}

async function acquire(file: string, mine: LockHolder, opts: AcquireOptions): Promise<HeldLock> {
  await mkdir(dirname(file), { recursive: true });
  // Later rounds follow a takeover of a stale lock (or a holder that just released).
  for (let round = 0; round < 3; round++) {
    if (await tryCreate(file, mine)) return track(file, mine);
    const { holder, raw } = await readHolder(file);
    if (raw === null) continue; // Released between our link and our read: try again.
    if (!holder)
      throw new KbError(
        "locked",
        `${opts.label} is locked by an unreadable lock file: if no cartographer process uses it, delete ${opts.displayPath}`,
      );
    const why = staleReason(holder);
    if (!why) throw lockedError(opts, holder);
    if (await removeIfUnchanged(file, raw))
      opts.logger.warn(
        `${opts.label}: took over the lock of pid ${holder.pid} (${holder.purpose} since ${holder.acquired_at}), ${why}; it did not shut down cleanly`,
      );
  }
  throw new KbError("locked", `${opts.label}: could not take the lock (contended); try again`);
}

function lockedError(opts: AcquireOptions, holder: LockHolder, note?: string): KbError {
  const who = `pid ${holder.pid} on host ${holder.host} (${holder.purpose} since ${holder.acquired_at})`;
  const remote =
    holder.host !== hostname()
      ? `; a lock from another host is never taken over: if that process is gone, delete ${opts.displayPath}`
      : "";
  return new KbError(
    "locked",
    `${opts.label} is in use by another cartographer process: ${who}${note ? `, ${note}` : ""}; stop it or use it instead${remote}`,
    { holder: { pid: holder.pid, host: holder.host, purpose: holder.purpose } },
  );
}

/** link(2) errors of filesystems that have no hard links (FAT, some FUSE and VM shares). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

/** Writes the full record to a temp file, then links it into place (atomic, EEXIST if held). */
async function tryCreate(file: string, mine: LockHolder): Promise<boolean> {
  const temp = `${file}.${process.pid}.${mine.nonce}.tmp`;
  const content = `${JSON.stringify(mine)}\n`;
  await writeFile(temp, content, { mode: 0o644 });
  try {
    await link(temp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (!NO_HARD_LINKS.has(code ?? "")) throw err;
  } finally {
    await unlink(temp).catch(() => {});
  }
  // A filesystem without hard links: O_EXCL create (a crash mid-write may leave it unreadable).
  try {
    await writeFile(file, content, { flag: "wx", mode: 0o644 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

async function readHolder(
  file: string,
): Promise<{ holder: LockHolder | null; raw: string | null }> {
  let raw: string;
  try {
    raw = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { holder: null, raw: null };
    throw err;
  }
  return { holder: parseHolder(raw), raw };
}

function parseHolder(raw: string): LockHolder | null {
  try {
    const v = JSON.parse(raw) as Partial<LockHolder>;
    if (!Number.isInteger(v.pid) || typeof v.host !== "string" || typeof v.nonce !== "string")
      return null;
    return {
      pid: v.pid as number,
      host: v.host,
      purpose: typeof v.purpose === "string" ? v.purpose : "unknown",
      acquired_at: typeof v.acquired_at === "string" ? v.acquired_at : "unknown",
      ...withPidStart(typeof v.pid_start === "string" ? v.pid_start : null),
      nonce: v.nonce,
    };
  } catch {
    return null;
  }
}

/** Why `holder` can no longer be holding its lock, or null when it may be. */
export function staleReason(holder: LockHolder): string | null {
  if (holder.host !== hostname()) return null;
  if (holder.pid === process.pid) {
    const ours = [...heldHere.values()].some((h) => h.nonce === holder.nonce);
    return ours ? null : "an earlier run with this process's pid";
  }
  if (!pidRunning(holder.pid)) return "which is no longer running";
  const now = pidStart(holder.pid);
  if (holder.pid_start && now && now !== holder.pid_start)
    return "whose pid now belongs to another process";
  return null;
}

function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // Alive, owned by another user.
  }
}

/** Field 22 of /proc/<pid>/stat (start time in ticks since boot), or null off Linux. */
function pidStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function withPidStart(value: string | null): { pid_start?: string } {
  return value ? { pid_start: value } : {};
}

/**
 * Moves the stale file aside and checks it is the one judged stale; a lock taken over by
 * another process in between is put back. True when the stale lock is gone.
 */
async function removeIfUnchanged(file: string, staleRaw: string): Promise<boolean> {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    await rename(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
  const moved = await readFile(aside, "utf8").catch(() => null);
  if (moved !== staleRaw) await link(aside, file).catch(() => {});
  await unlink(aside).catch(() => {});
  return moved === staleRaw;
}

function track(file: string, mine: LockHolder): HeldLock {
  heldHere.set(file, mine);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A crash that still runs exit handlers (uncaught exception, process.exit) leaves no lock.
    process.on("exit", () => {
      for (const [path, holder] of heldHere) releaseSync(path, holder);
    });
  }
  let released = false;
  return {
    holder: mine,
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(file);
      const { holder } = await readHolder(file).catch(() => ({ holder: null }));
      if (holder?.nonce === mine.nonce) await unlink(file).catch(() => {});
    },
  };
}

function releaseSync(file: string, mine: LockHolder): void {
  try {
    if (parseHolder(readFileSync(file, "utf8"))?.nonce === mine.nonce) unlinkSync(file);
  } catch {
    // Best effort at exit: a leftover lock is recovered as stale by the next process.
  }
}
