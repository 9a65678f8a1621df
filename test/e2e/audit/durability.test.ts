/**
 * The built binary under failure: best_effort drops (and counts) when the log is unwritable,
 * SIGKILL under concurrent HTTP load leaves only a torn tail and unmatched attempts, and
 * rotation + retention configured in the file keep `audit verify` green.
 */
import { readdirSync, readFileSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openAuditSink } from "../../../src/audit/sink.js";
import { appendPairs } from "../../audit/helpers.js";
import { type RunningServer, startServer } from "../helpers.js";
import {
  auditLines,
  CANARY,
  gitHead,
  httpClient,
  PUBLIC_KEY,
  type Sandbox,
  SEED,
  sandbox,
  textOf,
  verifyCli,
  waitFor,
  writeConfig,
} from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(box: Sandbox, audit: Record<string, string | number>): Promise<RunningServer> {
  const config = writeConfig(box.dir, audit);
  const env = { ...box.env, CARTOGRAPHER_AUDIT_KEY: SEED };
  const server = await startServer(["--config", config], { cwd: box.dir, env });
  cleanups.push(() => server.stop());
  return server;
}

async function setup(): Promise<Sandbox> {
  const box = await sandbox();
  cleanups.push(box.cleanup);
  return box;
}

async function seedConcept(server: RunningServer): Promise<void> {
  const c = await httpClient(server.url, CANARY.adminToken);
  const r = await c.callTool({
    name: "concept_write",
    arguments: { id: "seed", frontmatter: { type: "note" }, body: "seed" },
  });
  expect(r.isError, textOf(r)).toBeFalsy();
  await c.close();
}

/** Complete lines in the live log and its archive segments. */
function linesWritten(log: string, archive: string): number {
  let n = 0;
  const files = [log];
  try {
    for (const f of readdirSync(archive)) if (f.endsWith(".jsonl")) files.push(join(archive, f));
  } catch {}
  for (const f of files) {
    try {
      n += readFileSync(f, "utf8").split("\n").length - 1;
    } catch {}
  }
  return n;
}

describe("audit durability (built binary)", () => {
  it("best_effort: with the log unwritable a write still succeeds and the drop is counted", async () => {
    const box = await setup();
    const log = join(box.dir, "audit.jsonl");
    // The live log path points at /dev/full: every write to it fails with ENOSPC, and only the
    // audit log is affected (the handler's git and SQLite writes go elsewhere). Replacing the
    // link with nothing lets the sink's next reopen create a real file: appends recover.
    symlinkSync("/dev/full", log);
    const server = await serve(box, { log: "audit.jsonl", mode: "best_effort" });
    const admin = await httpClient(server.url, CANARY.adminToken);
    cleanups.push(() => admin.close());
    const before = gitHead(box.kbRoot);
    const res = await admin.callTool({
      name: "concept_write",
      arguments: { id: "dropped-audit", frontmatter: { type: "note" }, body: "x" },
    });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(gitHead(box.kbRoot)).not.toBe(before);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    await waitFor("the drop report", () => server.stderr().includes("entries are dropped"));
    unlinkSync(log);
    const read = await admin.callTool({ name: "concept_read", arguments: { id: "dropped-audit" } });
    expect(read.isError, textOf(read)).toBeFalsy();
    await waitFor("the recovery line", () => server.stderr().includes("appends recovered"));
    // The attempt and its completion: both dropped, so no completion lacks its attempt.
    expect(server.stderr()).toContain("appends recovered after 2 dropped");
    const lines = auditLines(log);
    expect(lines.map((l) => [l.phase, l.tool])).toEqual([
      ["attempt", "concept_read"],
      ["completion", "concept_read"],
    ]);
    expect(await server.stop()).toBe(0);
    const v = await verifyCli(box.dir, box.env, log, ["--public-key", PUBLIC_KEY]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain("valid: 2\n");
  }, 60_000);

  it("SIGKILL under concurrent HTTP load: verify reports at most a torn last line and unmatched attempts", async () => {
    const box = await setup();
    const server = await serve(box, {
      log: "audit.jsonl",
      mode: "required",
      max_segment_bytes: 16384,
    });
    const log = join(box.dir, "audit.jsonl");
    const archive = join(box.dir, "audit-archive");
    const callers = 8;
    await seedConcept(server);
    const clients = await Promise.all(
      Array.from({ length: callers }, () => httpClient(server.url, CANARY.adminToken)),
    );
    let stop = false;
    const load = clients.map(async (c, n) => {
      for (let i = 0; !stop; i++) {
        const call =
          i % 10 === 0
            ? {
                name: "concept_write",
                arguments: { id: `c${n}`, frontmatter: { type: "note" }, body: `${i}` },
              }
            : { name: "concept_read", arguments: { id: "seed" } };
        try {
          await c.callTool(call);
        } catch {
          return; // the server is gone
        }
      }
    });
    await waitFor("audit progress", () => linesWritten(log, archive) >= 200, 45_000);
    server.proc.kill("SIGKILL");
    await server.stop();
    stop = true;
    await Promise.all(load);
    for (const c of clients) await c.close().catch(() => {});

    const v = await verifyCli(box.dir, box.env, log, ["--public-key", PUBLIC_KEY]);
    const breaks = v.stderr.split("\n").filter((l) => /^audit: .*:\d+: /.test(l));
    if (v.code === 0) {
      expect(breaks).toEqual([]);
      expect(v.stdout).toContain("audit: chain verified");
    } else {
      expect(v.code).toBe(1);
      expect(breaks).toHaveLength(1);
      expect(breaks[0]).toMatch(/audit\.jsonl:\d+: truncated last line$/);
    }
    const incomplete = Number(/incomplete: (\d+)/.exec(v.stdout)?.[1]);
    expect(incomplete).toBeLessThanOrEqual(callers);
    expect(Number(/valid: (\d+)/.exec(v.stdout)?.[1])).toBeGreaterThanOrEqual(199);
    expect(v.stdout).toMatch(/segments: [1-9]\d* retained/);
  }, 90_000);

  it("rotation + retention from the config file keep verify green across deleted segments", async () => {
    const box = await setup();
    const log = join(box.dir, "audit.jsonl");
    const archive = join(box.dir, "arch");
    // An older chain: segments whose entries are 20 days old, rotated and checkpointed.
    const old = new Date(Date.now() - 20 * 86_400_000);
    const seeded = await openAuditSink({
      path: log,
      mode: "required",
      keySeedHex: SEED,
      maxSegmentBytes: 2048,
      archiveDir: archive,
      now: () => old,
    });
    await appendPairs(seeded, 12);
    await seeded.close();
    const oldSegments = readdirSync(archive).filter((n) => /^audit\.\d{8}\.jsonl$/.test(n));
    expect(oldSegments.length).toBeGreaterThanOrEqual(2);

    const server = await serve(box, {
      log: "audit.jsonl",
      mode: "required",
      max_segment_bytes: 2048,
      archive_dir: "arch",
      retention_days: 1,
    });
    const admin = await httpClient(server.url, CANARY.adminToken);
    cleanups.push(() => admin.close());
    await seedConcept(server);
    for (let i = 0; i < 8; i++) {
      const r = await admin.callTool({ name: "concept_read", arguments: { id: "seed" } });
      expect(r.isError, textOf(r)).toBeFalsy();
    }
    await admin.close();
    expect(await server.stop()).toBe(0);

    const now = readdirSync(archive).filter((n) => /^audit\.\d{8}\.jsonl$/.test(n));
    for (const s of oldSegments) expect(now).not.toContain(s); // retention deleted them
    expect(now.length).toBeGreaterThanOrEqual(1); // new rotations happened
    const v = await verifyCli(box.dir, box.env, log, [
      "--archive",
      archive,
      "--public-key",
      PUBLIC_KEY,
    ]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain("audit: chain verified");
    expect(v.stdout).toContain(
      `segments: ${now.length} retained, ${oldSegments.length} checkpoint-only`,
    );
  }, 60_000);
});
