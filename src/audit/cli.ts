/**
 * `cartographer audit verify|export` bodies (the lead wires them into commander). Offline:
 * files only. Exit codes: 0 verified, 1 any break, 2 usage error.
 */
import { exportAudit } from "./export.js";
import { AuditUsageError, type FormatRange, type VerifyReport, verifyAudit } from "./verify.js";

export interface AuditCliIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

export interface AuditVerifyArgs {
  log?: string;
  archive?: string;
  publicKey?: string;
}

export async function runAuditVerify(args: AuditVerifyArgs, io: AuditCliIo): Promise<number> {
  if (!args.log)
    return usage(io, "audit verify: --log PATH is required (or set CARTOGRAPHER_AUDIT_LOG)");
  let report: VerifyReport;
  try {
    report = await verifyAudit({
      log: args.log,
      archiveDir: args.archive,
      publicKeyHex: args.publicKey,
    });
  } catch (err) {
    if (err instanceof AuditUsageError) return usage(io, `audit verify: ${err.message}`);
    throw err;
  }
  io.stdout.write(formatCounts(report));
  if (!report.ok) return reportBreaks(io, report);
  io.stdout.write("audit: chain verified\n");
  return 0;
}

export async function runAuditExport(
  args: AuditVerifyArgs & { out?: string },
  io: AuditCliIo,
): Promise<number> {
  if (!args.log)
    return usage(io, "audit export: --log PATH is required (or set CARTOGRAPHER_AUDIT_LOG)");
  try {
    const result = await exportAudit({
      log: args.log,
      archiveDir: args.archive,
      publicKeyHex: args.publicKey,
      out: args.out,
    });
    if (!result.ok) {
      io.stderr.write("audit export: the chain does not verify; nothing was written\n");
      return reportBreaks(io, result.report);
    }
    if (result.written)
      io.stderr.write(
        `audit export: wrote ${result.document.events.length} events to ${result.written}\n`,
      );
    else io.stdout.write(`${JSON.stringify(result.document, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof AuditUsageError) return usage(io, `audit export: ${err.message}`);
    throw err;
  }
}

export function formatCounts(r: VerifyReport): string {
  const sigNote = r.signaturesChecked ? "" : " (signatures not checked: no --public-key)";
  return [
    `valid: ${r.valid}`,
    `signed: ${r.signed}${sigNote}`,
    `unsigned: ${r.unsigned}`,
    ...(r.goUnsignedAfterSigned > 0
      ? [
          `unsigned Go entries after signed ones: ${r.goUnsignedAfterSigned} (valid, as Go's verify reads them: D18)`,
        ]
      : []),
    `incomplete: ${r.incomplete} (attempts without completion)`,
    `segments: ${r.segmentsRetained} retained, ${r.segmentsCheckpointOnly} checkpoint-only (${r.checkpointOnlyEntries} entries)`,
    `head: ${r.head ?? "unknown"}`,
    ...r.formats.map(
      (f) => `read: ${f.file} lines ${f.firstLine}-${f.lastLine}: ${FORMAT_NAMES[f.format]}`,
    ),
    "",
  ].join("\n");
}

/** How `audit verify` names the formats it read (docs/audit.md). */
const FORMAT_NAMES: Record<FormatRange["format"], string> = {
  "cartographer-v1": "cartographer v1 (this server)",
  "go-v2": "Go v2 (D119)",
  "go-d18": "Go D18 (legacy)",
};

function reportBreaks(io: AuditCliIo, r: VerifyReport): number {
  for (const b of r.breaks) {
    io.stderr.write(`audit: ${b.file}:${b.line}: ${b.reason}${b.detail ? ` (${b.detail})` : ""}\n`);
  }
  if (r.breaksLeftOff > 0) io.stderr.write(`audit: … and ${r.breaksLeftOff} more break(s)\n`);
  io.stderr.write(`audit: chain NOT verified (${r.breaks.length + r.breaksLeftOff} break(s))\n`);
  return 1;
}

function usage(io: AuditCliIo, message: string): number {
  io.stderr.write(`${message}\n`);
  return 2;
}
