/**
 * `audit export`: a JSON report of the events and counts, produced only from a chain that
 * verifies — a corrupt log yields no document at all (D119), never a partial one.
 */
import { writeFileAtomic } from "../common/atomic-write.js";
import type { CheckpointSegment } from "./checkpoint.js";
import {
  type AnyAuditEntry,
  type FormatRange,
  type VerifyOptions,
  type VerifyReport,
  verifyAudit,
} from "./verify.js";

export interface AuditExportDocument {
  format: "cartographer-audit-export";
  version: 1;
  log: string;
  counts: Omit<VerifyReport, "ok" | "breaks" | "breaksLeftOff" | "formats">;
  /** Which format each line range was read in: cartographer-v1, go-v2 or go-d18. */
  formats: FormatRange[];
  /** Segments retention deleted: only their checkpoint summary remains. */
  checkpoint_only_segments: CheckpointSegment[];
  /** As written; `version` tells the format (1 ours, 2 Go v2, absent Go D18). */
  events: AnyAuditEntry[];
}

export type ExportResult =
  | { ok: true; report: VerifyReport; document: AuditExportDocument; written?: string }
  | { ok: false; report: VerifyReport };

/**
 * Verifies, then builds the document; with `out`, writes it atomically and durably (the one
 * atomic-write module: temp + fsync + rename, mode 0640). When verification fails nothing is
 * written and `ok` is false.
 */
export async function exportAudit(opts: VerifyOptions & { out?: string }): Promise<ExportResult> {
  const events: AnyAuditEntry[] = [];
  const { checkpointOnly, ...report } = await verifyAudit(opts, (e) => events.push(e));
  if (!report.ok) return { ok: false, report };
  const { ok: _ok, breaks: _breaks, breaksLeftOff: _left, formats, ...counts } = report;
  const document: AuditExportDocument = {
    format: "cartographer-audit-export",
    version: 1,
    log: opts.log,
    counts,
    formats,
    checkpoint_only_segments: checkpointOnly,
    events,
  };
  if (opts.out === undefined) return { ok: true, report, document };
  await writeFileAtomic(opts.out, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o640 });
  return { ok: true, report, document, written: opts.out };
}
