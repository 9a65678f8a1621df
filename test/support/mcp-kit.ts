/**
 * Helpers for MCP and HTTP tests: real temp KBs (git + SQLite) mounted with mountKb, an
 * in-memory audit sink that can be made to fail, principals with hand-built policies, and
 * probe ToolSpecs that count handler runs.
 */
import { join } from "node:path";
import type { AuditMode, AuditRecordInput, AuditSink } from "../../src/audit/types.js";
import type { PermissionRule, Principal } from "../../src/auth/types.js";
import { silentLogger } from "../../src/logger.js";
import { closeMount, type MountedKb, mountKb } from "../../src/runtime/mount.js";
import type { ToolSpec } from "../../src/tools/spec.js";
import { seedKb, testKbSettings } from "./kb.js";
import { tempDir } from "./temp-dir.js";

// The shared test identity (test/support/kb.ts); re-exported for the suites that import it here.
export { TEST_AUTHOR } from "./kb.js";

export interface TempMounts {
  mounts: MountedKb[];
  byName: Record<string, MountedKb>;
  cleanup: () => Promise<void>;
}

/** Fresh KBs named `names` in one temp dir; `artifacts` names those with allow_artifact_write. */
export async function tempMounts(
  names: string[],
  opts: { artifacts?: string[] } = {},
): Promise<TempMounts> {
  const tmp = tempDir("carto-mcp-");
  const mounts: MountedKb[] = [];
  for (const [i, name] of names.entries()) {
    const root = join(tmp.dir, `kb${i}`);
    await seedKb(root);
    const settings = testKbSettings(root, {
      name,
      allowArtifactWrite: opts.artifacts?.includes(name) ?? false,
    });
    mounts.push(await mountKb(settings, { logger: silentLogger }));
  }
  return {
    mounts,
    byName: Object.fromEntries(mounts.map((m) => [m.name, m])),
    cleanup: async () => {
      for (const m of mounts) await closeMount(m).catch(() => {});
      tmp.cleanup();
    },
  };
}

/** An AuditSink keeping records in memory; `failing` makes appends fail as the mode dictates. */
export class MemoryAudit implements AuditSink {
  records: AuditRecordInput[] = [];
  failing = false;
  drops = 0;
  constructor(readonly mode: AuditMode = "best_effort") {}
  async append(record: AuditRecordInput): Promise<void> {
    if (!this.failing) {
      this.records.push(structuredClone(record));
      return;
    }
    if (this.mode === "required") throw new Error("disk full (injected)");
    this.drops++;
  }
  healthy(): boolean {
    return !this.failing;
  }
  dropped(): number {
    return this.drops;
  }
  async close(): Promise<void> {}
}

export function principal(id: string, rules: Partial<PermissionRule>[] = []): Principal {
  return {
    id,
    policy: {
      admin: false,
      rules: rules.map((r) => ({
        kb: r.kb ?? "",
        access: r.access ?? "r",
        maps: r.maps ?? [],
        journals: r.journals ?? [],
        types: r.types ?? [],
      })),
    },
  };
}

/** Probe tools: a read and a write that count their runs (and can observe the audit). */
export function probeTools(counter: {
  reads: number;
  writes: number;
  onRun?: () => void;
}): ToolSpec[] {
  return [
    {
      name: "probe_read",
      description: "Counts reads.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string" } },
        additionalProperties: false,
      },
      readOnly: true,
      advanced: false,
      resource: "whole",
      auditFields: ["id"],
      handler: async (args) => {
        counter.onRun?.();
        counter.reads++;
        return { read: args.id ?? null };
      },
    },
    {
      name: "probe_write",
      description: "Writes one concept.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string" }, body: { type: "string" } },
        required: ["id"],
        additionalProperties: false,
      },
      readOnly: false,
      advanced: true,
      destructive: false,
      idempotent: true,
      resource: "exact",
      auditFields: ["id"],
      targets: (args) => [{ id: String(args.id), proposedType: "note", write: true }],
      handler: async (args, ctx) => {
        counter.onRun?.();
        counter.writes++;
        const plan = await ctx.runtime.store.planConceptWrite({
          id: String(args.id),
          frontmatter: { type: "note", title: String(args.id) },
          body: String(args.body ?? "hello\n"),
          mode: "upsert",
        });
        await ctx.runtime.apply(plan);
        return plan.result;
      },
    },
  ];
}

export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text: string }[] }).content ?? [];
  return content[0]?.text ?? "";
}

/** The value, or a thrown error naming what was missing (instead of a non-null assertion). */
export function must<T>(value: T | undefined | null): T {
  if (value === undefined || value === null) throw new Error("expected a value");
  return value;
}
