/**
 * The governance pages' fixture: one real KB (`main`) written through the real call pipeline
 * with a real audit log, so commits carry real subjects and the audit completions their shas.
 * Map `alpha` is visible to NARROW (read, map alpha, type note); map `beta` and type `task` are not.
 */
import { join } from "node:path";
import { type OpenedAuditSink, openAuditSink } from "../../../src/audit/sink.js";
import { visibilityFor } from "../../../src/auth/decide.js";
import type { Principal } from "../../../src/auth/types.js";
import type { ViewScope } from "../../../src/console/data/commit-view.js";
import { viewScope } from "../../../src/console/data/scope.js";
import { silentLogger } from "../../../src/logger.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import type { KbSurface } from "../../../src/mcp/kb-surface.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { principal, type TempMounts, tempMounts } from "../../support/mcp-kit.js";

export const NARROW: Principal = principal("narrow", [
  { kb: "main", access: "r", maps: ["alpha"], types: ["note"] },
]);
/** Words that name hidden things: none may reach NARROW. */
export const HIDDEN_WORDS = ["beta/", "in-task", "Secret Title", "secret-x"];

export interface GovKb {
  kbs: TempMounts;
  main: MountedKb;
  surface: KbSurface;
  audit: OpenedAuditSink;
  auditLog: string;
  root: string;
  /** Calls a tool as `who` (default the local admin); throws on an error result. */
  call(name: string, args: Record<string, unknown>, who?: Principal): Promise<string>;
  scopeOf(who: Principal): ViewScope;
  cleanup(): Promise<void>;
}

export const note = (id: string, type = "note") => ({
  op: "write",
  id,
  frontmatter: {
    type,
    title: `${id} ${type === "note" && id.startsWith("alpha/") ? "Public" : "Secret Title"}`,
  },
  body: "x\n",
});

/** The fixture: maps alpha and beta, then commits visible, hidden and mixed. */
export async function govKb(): Promise<GovKb> {
  const kbs = await tempMounts(["main"]);
  const main = kbs.byName.main as MountedKb;
  const auditLog = join(main.settings.root, "..", "audit", "audit.jsonl");
  const audit = await openAuditSink({ path: auditLog, mode: "required" });
  const surface = surfaceForMount(main, { logger: silentLogger, audit });
  const call = async (name: string, args: Record<string, unknown>, who = LOCAL_ADMIN) => {
    const r = await surface.callTool(name, args, {
      principal: who,
      transport: "in-memory",
      requestId: "",
    });
    const text = r.content[0]?.type === "text" ? r.content[0].text : "";
    if (r.isError) throw new Error(`${name}: ${text}`);
    return text;
  };
  await call("map_create", { name: "alpha", kind: "map" });
  await call("map_create", { name: "beta", kind: "map" });
  await call("concept_write", {
    id: "alpha/public",
    frontmatter: { type: "note", title: "Public note" },
    body: "visible body\n",
  });
  await call("concept_write", {
    id: "beta/secret-x",
    frontmatter: { type: "note", title: "Secret Title" },
    body: "hidden body\n",
  });
  await call("concept_write", {
    id: "alpha/in-task",
    frontmatter: { type: "task", title: "Secret Title task" },
    body: "hidden task\n",
  });
  await call("concept_batch", {
    operations: [note("alpha/mixed-visible"), note("beta/secret-y")],
  });
  return {
    kbs,
    main,
    surface,
    audit,
    auditLog,
    root: main.settings.root,
    call,
    scopeOf: (who) =>
      viewScope(main.runtime, visibilityFor(who.policy, "main", "r") ?? { all: false, rules: [] }),
    cleanup: async () => {
      await audit.close();
      await kbs.cleanup();
    },
  };
}
