import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REQUIRED_MODE_REJECTION } from "../../src/audit/types.js";
import { memoryLogger } from "../../src/logger.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { KbSurface } from "../../src/mcp/kb-surface.js";
import {
  MemoryAudit,
  must,
  principal,
  probeTools,
  type TempMounts,
  tempMounts,
  textOf,
} from "../support/mcp-kit.js";

let kbs: TempMounts;
beforeAll(async () => {
  kbs = await tempMounts(["alpha"]);
});
afterAll(async () => kbs.cleanup());

const ctx = (p = LOCAL_ADMIN) => ({
  principal: p,
  transport: "in-memory" as const,
  requestId: "r1",
});

function surface(
  opts: {
    audit?: MemoryAudit;
    counter?: { reads: number; writes: number; onRun?: () => void };
  } = {},
) {
  const counter = opts.counter ?? { reads: 0, writes: 0 };
  const logger = memoryLogger();
  const s = new KbSurface({
    runtime: must(kbs.byName.alpha).runtime,
    specs: probeTools(counter),
    audit: opts.audit ?? null,
    logger,
  });
  return { s, counter, logger };
}

describe("KbSurface descriptors", () => {
  it("agent profile hides advanced tools, full lists all, lists are built once and frozen", () => {
    const { s } = surface();
    expect(s.descriptors("agent").tools.map((t) => t.name)).toEqual(["probe_read"]);
    expect(s.descriptors("full").tools.map((t) => t.name)).toEqual(["probe_read", "probe_write"]);
    expect(s.descriptors("full")).toBe(s.descriptors("full"));
    expect(Object.isFrozen(must(s.descriptors("full").tools[0]).inputSchema)).toBe(true);
  });

  it("annotations say readOnly, destructive and idempotent only where set", () => {
    const { s } = surface();
    const [read, write] = s.descriptors("full").tools;
    expect(must(read).annotations).toEqual({ readOnlyHint: true });
    expect(must(write).annotations).toEqual({ destructiveHint: false, idempotentHint: true });
  });
});

describe("KbSurface.callTool order", () => {
  it("accepts `kb` naming this KB (any case) and drops it; another KB is an error naming both, the tool never runs", async () => {
    const { s, counter } = surface();
    expect(textOf(await s.callTool("probe_read", { id: "x", kb: "alpha" }, ctx()))).toBe(
      '{"read":"x"}',
    );
    expect(textOf(await s.callTool("probe_read", { id: "y", kb: "ALPHA" }, ctx()))).toBe(
      '{"read":"y"}',
    );
    expect(textOf(await s.callTool("probe_read", { kb: null }, ctx()))).toBe('{"read":null}');
    expect(counter.reads).toBe(3);
    for (const kb of ["beta", 7]) {
      const r = await s.callTool("probe_read", { id: "z", kb }, ctx());
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(
        new RegExp(
          `^invalid_argument: 'kb' is ${JSON.stringify(JSON.stringify(kb)).slice(1, -1)} but this endpoint serves only KB 'alpha'`,
        ),
      );
    }
    expect(counter.reads).toBe(3);
  });

  it("an unknown tool is `tool not found: <name>` and audited as unknown_tool", async () => {
    const audit = new MemoryAudit();
    const { s } = surface({ audit });
    const r = await s.callTool("nope", { body: "secret body" }, ctx());
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("tool not found: nope");
    expect(audit.records.map((x) => [x.phase, x.outcome])).toEqual([
      ["attempt", undefined],
      ["completion", "unknown_tool"],
    ]);
    expect(must(audit.records[0]).resources).toEqual({});
  });

  it("an unknown tool or invalid arguments are a write: denied unless admin", async () => {
    const { s, counter } = surface();
    const reader = principal("reader", [{ kb: "alpha", access: "rw" }]);
    expect(textOf(await s.callTool("nope", {}, ctx(reader)))).toBe("forbidden");
    expect(textOf(await s.callTool("probe_read", { id: 5 }, ctx(reader)))).toBe("forbidden");
    const admin = await s.callTool("probe_read", { id: 5 }, ctx());
    expect(textOf(admin)).toMatch(/^invalid_argument: 'id' must be a string/);
    expect(counter.reads).toBe(0);
  });

  it("the audit attempt is durable before the handler runs", async () => {
    const audit = new MemoryAudit("required");
    const seen: string[] = [];
    const counter = {
      reads: 0,
      writes: 0,
      onRun: () => seen.push(audit.records.map((r) => r.phase).join(",")),
    };
    const { s } = surface({ audit, counter });
    const r = await s.callTool("probe_read", { id: "x" }, ctx());
    expect(textOf(r)).toBe('{"read":"x"}');
    expect(seen).toEqual(["attempt"]);
    expect(audit.records.map((x) => x.phase)).toEqual(["attempt", "completion"]);
    expect(audit.records[1]).toMatchObject({
      outcome: "success",
      kb: "alpha",
      tool: "probe_read",
      read_only: true,
      principal_id: "local-admin",
    });
  });

  it("required mode: a failed attempt rejects the call and the handler never runs", async () => {
    const audit = new MemoryAudit("required");
    audit.failing = true;
    const { s, counter, logger } = surface({ audit });
    for (const [tool, args] of [
      ["probe_read", {}],
      ["probe_write", { id: "notes/a" }],
    ] as const) {
      const r = await s.callTool(tool, args, ctx());
      expect(r.isError).toBe(true);
      expect(textOf(r)).toBe(REQUIRED_MODE_REJECTION);
    }
    expect(counter).toMatchObject({ reads: 0, writes: 0 });
    expect(logger.lines.some((l) => l.includes("audit attempt"))).toBe(true);
  });

  it("best_effort mode: a failed append is dropped and the call proceeds", async () => {
    const audit = new MemoryAudit("best_effort");
    audit.failing = true;
    const { s, counter } = surface({ audit });
    expect((await s.callTool("probe_read", {}, ctx())).isError).toBeUndefined();
    expect(counter.reads).toBe(1);
    expect(audit.dropped()).toBe(2);
  });

  it("a write runs under the lock and makes one commit `<tool>: <target>`, its sha in the audit", async () => {
    const audit = new MemoryAudit();
    const { s } = surface({ audit });
    const root = must(kbs.byName.alpha).settings.root;
    const r = await s.callTool("probe_write", { id: "alpha-note", body: "BODY-CANARY\n" }, ctx());
    expect(r.isError).toBeUndefined();
    const head = execFileSync("git", ["log", "-1", "--format=%H %s"], { cwd: root })
      .toString()
      .trim();
    expect(head.split(" ").slice(1).join(" ")).toBe("probe_write: alpha-note");
    const completion = must(audit.records[1]);
    expect(completion.commit_sha).toBe(head.split(" ")[0]);
    expect(completion.resources).toEqual({ id: "alpha-note" });
    expect(JSON.stringify(audit.records)).not.toContain("BODY-CANARY");
  });

  it("denials render exactly `forbidden` and are audited with their outcome", async () => {
    const audit = new MemoryAudit();
    const { s, counter } = surface({ audit });
    const other = principal("other", [{ kb: "beta", access: "rw" }]);
    const r = await s.callTool("probe_read", {}, ctx(other));
    expect(r).toEqual({ content: [{ type: "text", text: "forbidden" }], isError: true });
    expect(audit.records.map((x) => x.outcome)).toEqual([undefined, "forbidden"]);
    expect(counter.reads).toBe(0);
  });

  it("writes are re-authorized under the lock: a type changed while waiting is refused", async () => {
    const { s, counter } = surface();
    const runtime = must(kbs.byName.alpha).runtime;
    const store = runtime.store;
    const writeFor = async (type: string) => {
      const plan = await store.planConceptWrite({
        id: "guarded",
        frontmatter: { type, title: "g" },
        body: "x\n",
        mode: "upsert",
      });
      await store.apply(plan);
    };
    await writeFor("note");
    const noteWriter = principal("notes", [{ kb: "alpha", access: "rw", types: ["note"] }]);
    let release: () => void = () => {};
    const held = store.withLock(() => new Promise<void>((resolve) => (release = resolve)));
    const call = s.callTool("probe_write", { id: "guarded" }, ctx(noteWriter));
    await new Promise((r) => setTimeout(r, 50)); // the call authorized and now waits for the lock
    await writeFor("secret");
    release();
    await held;
    const r = await call;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("not found");
    expect(counter.writes).toBe(0);
  });
});
