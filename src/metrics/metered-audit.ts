/**
 * An audit sink that times its appends (`cartographer_audit_appends_total`,
 * `cartographer_audit_append_duration_seconds`) and otherwise is the sink it wraps.
 */
import type { Counter, Histogram } from "prom-client";
import type { AuditRecordInput, AuditSink } from "../audit/types.js";

export function meteredAuditSink(
  sink: AuditSink,
  appends: Counter<"result">,
  duration: Histogram,
): AuditSink {
  const ok = appends.labels({ result: "ok" });
  const failed = appends.labels({ result: "failed" });
  return {
    get mode() {
      return sink.mode;
    },
    async append(record: AuditRecordInput) {
      const started = performance.now();
      const dropped = sink.dropped();
      try {
        await sink.append(record);
        // best_effort resolves on a failed append and counts it as dropped instead.
        (sink.dropped() > dropped ? failed : ok).inc();
      } catch (err) {
        failed.inc();
        throw err;
      } finally {
        duration.observe((performance.now() - started) / 1000);
      }
    },
    healthy: () => sink.healthy(),
    dropped: () => sink.dropped(),
    close: () => sink.close(),
  };
}
