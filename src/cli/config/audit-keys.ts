/** The audit log settings: `--audit-log` / CARTOGRAPHER_AUDIT_LOG / `audit.log` and the `audit` block. */
import type { Settings } from "./pick.js";
import type { FileConfig } from "./schema.js";
import type { AuditSettings, ServeFlags } from "./types.js";

/** null when no layer names a log: the server runs without an audit trail. */
export function resolveAudit(
  settings: Settings,
  flags: ServeFlags,
  file: FileConfig,
  at: (p: string) => string,
): AuditSettings | null {
  const log = settings.pick({
    flag: ["--audit-log", flags.auditLog],
    env: "CARTOGRAPHER_AUDIT_LOG",
    key: ["audit.log", file.audit?.log],
  });
  if (!log) return null;
  // Go's zero value "" means unsigned, as an unset key does (docs/decisions.md "Go's audit.key_seed").
  const keySeed = settings.pick({
    env: "CARTOGRAPHER_AUDIT_KEY",
    key: ["audit.key_seed", file.audit?.key_seed],
  });
  return {
    log: at(log.value),
    mode: file.audit?.mode ?? "best_effort",
    keySeedHex: keySeed?.value,
    maxSegmentBytes: file.audit?.max_segment_bytes,
    archiveDir: file.audit?.archive_dir ? at(file.audit.archive_dir) : undefined,
    retentionDays: file.audit?.retention_days,
  };
}
