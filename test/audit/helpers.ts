import { type AuditFile, type AuditIo, nodeAuditIo } from "../../src/audit/io.js";
import type { AuditRecordInput } from "../../src/audit/types.js";
import { tempDir as makeTempDir } from "../support/temp-dir.js";

export const SEED = "0f".repeat(32);
export const OTHER_SEED = "a1".repeat(32);

/** A fresh directory (the suites' one temp-dir helper); each test file removes it itself. */
export async function tempDir(): Promise<string> {
  return makeTempDir("cartographer-audit-").dir;
}

export function record(
  requestId: string,
  phase: "attempt" | "completion" = "attempt",
): AuditRecordInput {
  return {
    phase,
    request_id: requestId,
    principal_id: "tok-ops",
    transport: "http",
    kb: "homelab",
    tool: "concept_read",
    read_only: true,
    resources: { id: "infra/dns" },
    ...(phase === "completion"
      ? { outcome: "success" as const, duration_ms: 3, commit_sha: null }
      : {}),
  };
}

/** Appends an attempt and a completion for each of `n` requests. */
export async function appendPairs(
  sink: { append(r: AuditRecordInput): Promise<void> },
  n: number,
  prefix = "r",
): Promise<void> {
  for (let i = 0; i < n; i++) {
    await sink.append(record(`${prefix}${i}`));
    await sink.append(record(`${prefix}${i}`, "completion"));
  }
}

/** The real file operations with switchable failures and an fsync counter (the test-only seam). */
export function faultyIo(): AuditIo & {
  fail: { write: boolean; sync: boolean; open: boolean };
  syncs: number;
  writes: number;
} {
  const io = {
    ...nodeAuditIo,
    fail: { write: false, sync: false, open: false },
    syncs: 0,
    writes: 0,
    async open(file: string): Promise<AuditFile> {
      if (io.fail.open) throw new Error("injected open failure");
      const real = await nodeAuditIo.open(file);
      return {
        ...real,
        async write(data, position) {
          io.writes++;
          if (io.fail.write) {
            // A partial write, then the error: the sink must roll the bytes back.
            await real.write(data.subarray(0, Math.ceil(data.length / 2)), position);
            throw new Error("injected ENOSPC");
          }
          return real.write(data, position);
        },
        async sync() {
          io.syncs++;
          if (io.fail.sync) throw new Error("injected EIO on fsync");
          return real.sync();
        },
      };
    },
  };
  return io;
}
