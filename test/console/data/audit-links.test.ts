/**
 * A commit's call beyond the audit window: a real pipeline-written log, then more than the
 * window's 8 MiB of later calls (chained like the sink's), so the window no longer holds the
 * commit's completion and only the commit index finds it — for its own KB only. The log stays
 * byte for byte as it was and still verifies.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyAudit } from "../../../src/audit/verify.js";
import { commitCalls } from "../../../src/console/data/audit-links.js";
import { auditWindow, WINDOW_BYTES } from "../../../src/console/data/audit-window.js";
import { appendTrail, fillerCalls } from "../../support/audit-trail.js";
import { git } from "../../support/kb.js";
import { tempDir } from "../../support/temp-dir.js";
import { type GovKb, govKb } from "./gov-kb.js";

let kb: GovKb;
let log: string;
let old: string;
const tmp = tempDir("carto-audit-links-");
beforeAll(async () => {
  kb = await govKb();
  await kb.call("concept_write", {
    id: "alpha/long-ago",
    frontmatter: { type: "note", title: "Long ago" },
    body: "old\n",
  });
  old = git(kb.root, ["rev-parse", "HEAD"]);
  await kb.audit.close();
  mkdirSync(join(tmp.dir, "trail"));
  log = join(tmp.dir, "trail", "audit.jsonl");
  copyFileSync(kb.auditLog, log);
  const lines = readFileSync(log, "utf8").trimEnd().split("\n");
  const head = (JSON.parse(lines.at(-1) as string) as { hash: string }).hash;
  await appendTrail(log, fillerCalls(12_000), head, Date.now());
}, 60_000);
afterAll(async () => {
  await kb?.cleanup();
  tmp.cleanup();
});

describe("commitCalls", () => {
  it("names the call of a commit older than the audit window", async () => {
    expect(statSync(log).size).toBeGreaterThan(WINDOW_BYTES + 1_000_000);
    const window = await auditWindow(log);
    expect(window.callOfCommit(old)).toBeUndefined();
    const calls = await commitCalls({ log }, "main", [old], 30_000);
    expect(calls.indexing).toBe(false);
    expect(calls.get(old)).toMatchObject({
      kb: "main",
      principal_id: "local-admin",
      tool: "concept_write",
      transport: "in-memory",
      outcome: "success",
      commit_sha: old,
      resources: { id: "alpha/long-ago" },
    });
  });

  it("never names another KB's call, nor one for a sha no call made", async () => {
    expect((await commitCalls({ log }, "other", [old], 30_000)).get(old)).toBeUndefined();
    const init = git(kb.root, ["rev-list", "--max-parents=0", "HEAD"]);
    expect((await commitCalls({ log }, "main", [init], 30_000)).get(init)).toBeUndefined();
  });

  it("leaves the log unchanged and verifiable", async () => {
    const before = readFileSync(log);
    await commitCalls({ log }, "main", [old], 30_000);
    expect(readFileSync(log).equals(before)).toBe(true);
    const report = await verifyAudit({ log });
    expect(report.ok).toBe(true);
    expect(report.breaks).toEqual([]);
  });
});
