/**
 * SIGTERM with a write in flight whose client already hung up (the built binary): the server
 * finishes the write, appends its audit completion, and only then closes the log, so `audit
 * verify` finds every attempt completed. The write is slowed by a post-commit hook (git runs
 * it even under --no-verify), which is the only way to stall a real call from outside.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServer } from "../helpers.js";
import {
  auditLines,
  CANARY,
  PUBLIC_KEY,
  SEED,
  sandbox,
  verifyCli,
  waitFor,
  writeConfig,
} from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("graceful shutdown and the audit log (built binary)", () => {
  it("SIGTERM while a hung-up client's write runs: its completion is logged and verify passes", async () => {
    const box = await sandbox();
    cleanups.push(box.cleanup);
    const marker = join(box.dir, "hook-started");
    const hook = join(box.kbRoot, ".git", "hooks", "post-commit");
    writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\nsleep 1\n`);
    chmodSync(hook, 0o755);
    const config = writeConfig(box.dir, { log: "audit.jsonl", mode: "best_effort" });
    const server = await startServer(["--config", config], {
      cwd: box.dir,
      env: { ...box.env, CARTOGRAPHER_AUDIT_KEY: SEED },
    });
    cleanups.push(() => server.stop("SIGKILL"));

    const req = request(`${server.url}/mcp/lab`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${CANARY.adminToken}`,
      },
    });
    req.on("error", () => {});
    req.end(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "concept_write",
          arguments: { id: "late", frontmatter: { type: "note" }, body: "late\n" },
        },
      }),
    );
    await waitFor("the commit hook", () => existsSync(marker), 15_000);
    req.destroy(); // the client gives up while the server is still committing
    await new Promise((r) => setTimeout(r, 50));
    expect(await server.stop("SIGTERM")).toBe(0);

    const lines = auditLines(join(box.dir, "audit.jsonl"));
    expect(lines.map((l) => [l.phase, l.tool, l.outcome])).toEqual([
      ["attempt", "concept_write", undefined],
      ["completion", "concept_write", "success"],
    ]);
    expect(lines[1]?.commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const v = await verifyCli(box.dir, box.env, join(box.dir, "audit.jsonl"), [
      "--public-key",
      PUBLIC_KEY,
    ]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain("incomplete: 0");
  }, 60_000);
});
