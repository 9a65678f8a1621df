/**
 * Writes audit log lines as the sink does (audit/entry.ts: chained, members sorted), without
 * a server: old trails for the console's commit index, and the benchmark's 100 MB logs.
 */
import { appendFile } from "node:fs/promises";
import { chainEntry, entryFromRecord, GENESIS } from "../../src/audit/entry.js";
import type { AuditRecordInput } from "../../src/audit/types.js";

export interface TrailCall {
  kb: string;
  principal: string;
  tool: string;
  /** A write's commit (its completion records it); absent for a read. */
  commitSha?: string;
  resources?: Record<string, unknown>;
}

/** `n` read calls of `kb`, about 900 bytes of log each (attempt + completion). */
export function* fillerCalls(n: number, kb = "main"): Generator<TrailCall> {
  for (let i = 0; i < n; i++)
    yield {
      kb,
      principal: `reader-${i % 7}`,
      tool: "concept_read",
      resources: { id: `alpha/n${i}` },
    };
}

/**
 * Appends an attempt and a completion per call to `file`, chained from `prev` (the log's last
 * hash, or genesis); returns the new last hash. Written in batches of about 4 MiB.
 */
export async function appendTrail(
  file: string,
  calls: Iterable<TrailCall>,
  prev: string = GENESIS,
  start = Date.parse("2026-01-01T00:00:00Z"),
): Promise<string> {
  let head = prev;
  let batch: string[] = [];
  let bytes = 0;
  let i = 0;
  for (const call of calls) {
    const base: AuditRecordInput = {
      phase: "attempt",
      request_id: `trail-${start}-${i}`,
      principal_id: call.principal,
      transport: "http",
      kb: call.kb,
      tool: call.tool,
      read_only: call.commitSha === undefined,
      resources: call.resources ?? {},
    };
    const time = new Date(start + i * 1000).toISOString();
    for (const record of [
      base,
      {
        ...base,
        phase: "completion" as const,
        outcome: "success" as const,
        duration_ms: 1.5,
        ...(call.commitSha !== undefined ? { commit_sha: call.commitSha } : {}),
      },
    ]) {
      const entry = chainEntry(
        entryFromRecord(record, `${base.request_id}-${record.phase}`, time),
        head,
      );
      head = entry.hash;
      const line = `${JSON.stringify(entry)}\n`;
      batch.push(line);
      bytes += line.length;
    }
    i++;
    if (bytes > 4 << 20) {
      await appendFile(file, batch.join(""));
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) await appendFile(file, batch.join(""));
  return head;
}
