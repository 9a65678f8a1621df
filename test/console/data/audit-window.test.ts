/**
 * The audit window over a real log written by the real sink through the real pipeline: calls
 * paired by request id, a commit linked to its call by the completion's sha, appended lines read
 * incrementally, a replaced (rotated) log read afresh, and an interrupted attempt left open.
 */
import { appendFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditWindow, auditWindow, CallFolder } from "../../../src/console/data/audit-window.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { type GovKb, govKb } from "./gov-kb.js";

let kb: GovKb;
beforeAll(async () => {
  kb = await govKb();
}, 60_000);
afterAll(async () => kb?.cleanup());
const tmp = useTempDirs("carto-audit-window-");

describe("AuditWindow", () => {
  it("pairs attempts and completions and links a commit to its call", async () => {
    const window = await auditWindow(kb.auditLog);
    const head = git(kb.root, ["rev-parse", "HEAD"]);
    const call = window.callOfCommit(head);
    expect(call).toMatchObject({
      kb: "main",
      principal_id: "local-admin",
      transport: "in-memory",
      tool: "concept_batch",
      outcome: "success",
      commit_sha: head,
      attempted: true,
    });
    expect(window.call(call?.request_id ?? "")).toBe(call);
  });

  it("reads only what was appended since, and starts over on a new file", async () => {
    const dir = tmp();
    const log = join(dir, "a.jsonl");
    const line = (phase: string, request_id: string, extra: Record<string, unknown> = {}) =>
      `${JSON.stringify({ phase, request_id, kb: "k", principal_id: "p", tool: "t", resources: {}, timestamp: "2026-01-01T00:00:00Z", ...extra })}\n`;
    await writeFile(log, line("attempt", "r1"));
    const w = new AuditWindow(log);
    await w.refresh();
    expect(w.calls.map((c) => c.request_id)).toEqual(["r1"]);
    expect(w.calls[0]?.outcome).toBeUndefined();
    // A torn last line (no newline yet) is not read until it is complete.
    await appendFile(
      log,
      line("completion", "r1", { outcome: "success", commit_sha: "a".repeat(40) }).trimEnd(),
    );
    await w.refresh();
    expect(w.calls[0]?.outcome).toBeUndefined();
    await appendFile(log, "\n");
    await w.refresh();
    expect(w.calls[0]?.outcome).toBe("success");
    expect(w.callOfCommit("a".repeat(40))?.request_id).toBe("r1");
    // Rotation: the live log is a new file.
    await rename(log, join(dir, "a.00000001.jsonl"));
    await writeFile(log, line("attempt", "r2"));
    await w.refresh();
    expect(w.calls.map((c) => c.request_id)).toEqual(["r2"]);
  });

  it("skips lines that are not entries of ours", () => {
    const f = new CallFolder();
    f.add("not json");
    f.add(JSON.stringify({ phase: "begin", request_id: "x", kb: "k" }));
    f.add(JSON.stringify({ v: 2, seq: 1 }));
    expect(f.calls).toEqual([]);
  });
});
