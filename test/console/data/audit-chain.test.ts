/**
 * Chain status from the real verify: a log the sink wrote verifies; one edited line breaks it
 * (the page shows it broken); the status is recomputed only when the files change.
 */
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainStatus } from "../../../src/console/data/audit-chain.js";
import { type GovKb, govKb } from "./gov-kb.js";

let kb: GovKb;
beforeAll(async () => {
  kb = await govKb();
}, 60_000);
afterAll(async () => kb?.cleanup());

describe("chainStatus", () => {
  it("reports a written log as verified, then a tampered one as broken", async () => {
    const ok = await chainStatus({ log: kb.auditLog }, 5_000);
    expect(ok.checking).toBe(false);
    expect(ok.report?.ok).toBe(true);
    expect(ok.report?.attempts).toBeGreaterThan(5);
    expect(ok.report?.incomplete).toBe(0);
    // Unchanged files: the same result, no new run.
    expect(await chainStatus({ log: kb.auditLog }, 0)).toBe(ok);

    const text = await readFile(kb.auditLog, "utf8");
    await writeFile(kb.auditLog, text.replace('"tool":"map_create"', '"tool":"map_delete"'));
    const broken = await chainStatus({ log: kb.auditLog }, 5_000);
    expect(broken.report?.ok).toBe(false);
    expect(broken.report?.breaks[0]?.reason).toBe("hash mismatch");
  });

  it("a missing log is reported without its path", async () => {
    const s = await chainStatus({ log: `${kb.auditLog}.absent` }, 5_000);
    expect(s.report).toBeNull();
    expect(s.error).toContain("audit.jsonl.absent");
    expect(s.error).not.toContain(kb.root.split("/").slice(0, -1).join("/"));
  });
});
