/**
 * The audit log's lock across processes (docs/decisions.md "One process per audit log"): two
 * servers appending to one log would interleave lines and fork the hash chain. The sink holds
 * `<log>.lock` from its first open until close; a second process is refused at startup with the
 * holder named. Stale locks are taken over as for KBs (kb/process-lock.ts, docs/operations.md
 * "Locks").
 */
import { basename } from "node:path";
import { acquireProcessLock, type HeldLock } from "../common/process-lock.js";
import type { Logger } from "../logger.js";

/** The lock file of the audit log at `logPath`. */
export function auditLockPath(logPath: string): string {
  return `${logPath}.lock`;
}

/** Takes the audit log's lock, or throws KbError `locked` naming the holder. */
export function acquireAuditLogLock(logPath: string, logger: Logger): Promise<HeldLock> {
  return acquireProcessLock(auditLockPath(logPath), {
    label: `the audit log ${logPath}`,
    purpose: "audit",
    displayPath: `${basename(logPath)}.lock next to the audit log`,
    logger,
  });
}
