/**
 * Child process for the audit-log lock test: opens an audit sink on argv[2], appends one entry,
 * prints `open` (or `refused: <message>`), then keeps the sink open until killed.
 * Usage: node --import tsx log-holder.ts <logFile>
 */
import { openAuditSink } from "../../src/audit/sink.js";

const log = process.argv[2] as string;
try {
  const sink = await openAuditSink({ path: log, mode: "required" });
  await sink.append({
    phase: "attempt",
    request_id: `child-${process.pid}`,
    principal_id: "local-admin",
    transport: "stdio",
    kb: "notes",
    tool: "search",
    read_only: true,
    resources: {},
  });
  process.stdout.write("open\n");
  setInterval(() => {}, 60_000);
} catch (err) {
  process.stdout.write(`refused: ${(err as Error).message}\n`);
  process.exit(3);
}
