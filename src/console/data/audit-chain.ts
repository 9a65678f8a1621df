/**
 * The audit chain's status for the audit page: the existing offline verify (audit/verify.ts:
 * checkpoints, archived segments, the live log), run in the background and remembered until the
 * live log or the checkpoint index changes (docs/decisions.md "Console: the audit window"). A
 * page waits briefly for a run under way, then shows the last result with "checking".
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { defaultArchiveDir, indexFileName } from "../../audit/checkpoint.js";
import { type VerifyReport, verifyAudit } from "../../audit/verify.js";

export interface AuditLogSettings {
  /** The live log. */
  log: string;
  archiveDir?: string;
  /** Hex Ed25519 public key: signatures are checked too. */
  publicKeyHex?: string;
}

export interface ChainStatus {
  /** The last completed verification (null: none finished yet). */
  report: VerifyReport | null;
  /** A failure to run it at all (unreadable log): the message, without paths. */
  error: string | null;
  /** When `report` was made. */
  checkedAt: Date | null;
  /** A verification of a newer state is still running. */
  checking: boolean;
}

/** How long a page waits for a verification under way. */
export const VERIFY_WAIT_MS = 40;

interface Entry {
  key: string;
  status: ChainStatus;
  running: Promise<void> | null;
}

const entries = new Map<string, Entry>();

/** The chain status of `s.log`, re-verified when the files changed since the last run. */
export async function chainStatus(
  s: AuditLogSettings,
  waitMs = VERIFY_WAIT_MS,
  now: () => Date = () => new Date(),
): Promise<ChainStatus> {
  const key = await stateKey(s);
  let e = entries.get(s.log);
  if (!e) {
    e = {
      key: "",
      status: { report: null, error: null, checkedAt: null, checking: false },
      running: null,
    };
    entries.set(s.log, e);
  }
  const entry = e;
  if (entry.key !== key && entry.running === null) {
    entry.status = { ...entry.status, checking: true };
    entry.running = verifyAudit({
      log: s.log,
      ...(s.archiveDir !== undefined ? { archiveDir: s.archiveDir } : {}),
      ...(s.publicKeyHex !== undefined ? { publicKeyHex: s.publicKeyHex } : {}),
    })
      .then(
        ({ checkpointOnly: _c, ...report }) => {
          entry.status = { report, error: null, checkedAt: now(), checking: false };
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          entry.status = {
            report: null,
            error: withoutPaths(message, s),
            checkedAt: now(),
            checking: false,
          };
        },
      )
      .finally(() => {
        entry.key = key;
        entry.running = null;
      });
  }
  if (entry.running) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      entry.running,
      new Promise<void>((r) => {
        timer = setTimeout(r, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }
  return entry.status;
}

/** Size and mtime of the live log and the checkpoint index: what a verification depends on. */
async function stateKey(s: AuditLogSettings): Promise<string> {
  const archive = s.archiveDir ?? defaultArchiveDir(s.log);
  const facts = await Promise.all(
    [s.log, path.join(archive, indexFileName(s.log))].map((f) =>
      stat(f).then(
        (st) => `${st.ino}:${st.size}:${st.mtimeMs}`,
        () => "-",
      ),
    ),
  );
  return facts.join("|");
}

/** Error messages never carry absolute server paths: the log is named by its base name. */
function withoutPaths(message: string, s: AuditLogSettings): string {
  let out = message.split(s.log).join(path.basename(s.log));
  const archive = s.archiveDir ?? defaultArchiveDir(s.log);
  out = out.split(archive).join(path.basename(archive));
  return out;
}
