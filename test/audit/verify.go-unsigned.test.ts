/**
 * Signatures in a Go log are read as Go's verify reads them: an unsigned Go line after signed
 * ones is valid (Go D18 "entries without sig remain valid") and counted; in a line this server
 * wrote, an unsigned entry after a signed one stays a break (a stripped signature).
 */
import * as fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAuditVerify } from "../../src/audit/cli.js";
import { openAuditSink } from "../../src/audit/sink.js";
import { GO_PUBLIC_KEY, GoChain, type GoLine, goPairs, jsonl } from "./go-log.js";
import { appendPairs, tempDir } from "./helpers.js";

function capture() {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      stdout: { write: (s: string) => (out.stdout += s) },
      stderr: { write: (s: string) => (out.stderr += s) },
    },
  };
}

let dir: string;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** A Go v2 pair written without a key (Go's sink with no key_seed), after `chain`'s lines. */
function unsignedPair(chain: GoChain, requestId: string): GoLine[] {
  const base = {
    request_id: requestId,
    principal_id: "tok-ops",
    transport: "http",
    kb: "homelab",
    tool: "search",
    read_only: true,
  };
  return [
    chain.v2(
      { ...base, id: `${requestId}a`, timestamp: "2026-01-02T09:00:00Z", phase: "attempt" },
      false,
    ),
    chain.v2(
      {
        ...base,
        id: `${requestId}c`,
        timestamp: "2026-01-02T09:00:01Z",
        phase: "completion",
        outcome: "success",
        duration_ms: 1,
      },
      false,
    ),
  ];
}

describe("unsigned entries after signed ones", () => {
  it("in a Go log: valid as Go reads them, and counted", async () => {
    dir = await tempDir();
    const chain = new GoChain();
    const lines = [...goPairs(chain, 2, "s"), ...unsignedPair(chain, "u")];
    expect(lines.slice(-2).every((l) => l.sig === undefined)).toBe(true);
    const log = path.join(dir, "audit.log");
    await fs.writeFile(log, jsonl(lines));
    const a = capture();
    expect(await runAuditVerify({ log, publicKey: GO_PUBLIC_KEY }, a.io), a.out.stderr).toBe(0);
    expect(a.out.stdout).toContain("unsigned Go entries after signed ones: 2 (valid");
    expect(a.out.stdout).toContain("audit: chain verified");
    // Tampering with such a line is still caught by its hash.
    const tampered = lines.map((l, i) => (i === lines.length - 1 ? { ...l, duration_ms: 99 } : l));
    await fs.writeFile(log, jsonl(tampered));
    const b = capture();
    expect(await runAuditVerify({ log, publicKey: GO_PUBLIC_KEY }, b.io)).toBe(1);
    expect(b.out.stderr).toContain(`${log}:6: hash mismatch`);
  });

  it("in lines this server wrote after Go's signed ones: a break", async () => {
    dir = await tempDir();
    const log = path.join(dir, "audit.log");
    await fs.writeFile(log, jsonl(goPairs(new GoChain(), 2, "s")));
    // The migrated server runs without the key seed: its lines are unsigned.
    const sink = await openAuditSink({ path: log, mode: "required" });
    await appendPairs(sink, 1);
    await sink.close();
    const a = capture();
    expect(await runAuditVerify({ log, publicKey: GO_PUBLIC_KEY }, a.io)).toBe(1);
    expect(a.out.stderr).toContain(`${log}:5: missing signature`);
    expect(a.out.stderr).toContain(`${log}:6: missing signature`);
  });
});
