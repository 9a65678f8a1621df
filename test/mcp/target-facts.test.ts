import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorize } from "../../src/auth/decide.js";
import type { Policy } from "../../src/auth/types.js";
import type { KbStore } from "../../src/kb/core/api.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import { buildAuthRequest } from "../../src/mcp/target-facts.js";
import { toolsFor } from "../../src/tools/registry.js";
import type { ToolSpec } from "../../src/tools/spec.js";
import { makeTempKb, type TempKb } from "../support/tool-kb.js";

/** The real store, counting the reads buildAuthRequest makes through it. */
function counting(store: KbStore): { store: KbStore; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "maps" && prop !== "tryReadConcept") return value;
      return (...args: unknown[]) => {
        reads++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, reads: () => reads };
}

const rule = (access: "r" | "rw", maps: string[] = []) => ({
  kb: "test",
  access,
  maps,
  journals: [],
  types: [],
});

describe("buildAuthRequest", () => {
  let kb: TempKb;
  let read: ToolSpec;
  let write: ToolSpec;
  beforeAll(async () => {
    kb = await makeTempKb();
    const specs = toolsFor(kb.settings);
    read = specs.find((s) => s.name === "concept_read") as ToolSpec;
    write = specs.find((s) => s.name === "concept_write") as ToolSpec;
  });
  afterAll(() => kb.cleanup());

  it("reads no facts for principals with whole-KB access, and the decision is unchanged", async () => {
    const policies: Policy[] = [LOCAL_ADMIN.policy, { admin: false, rules: [rule("rw")] }];
    for (const policy of policies) {
      for (const spec of [read, write]) {
        const c = counting(kb.runtime.store);
        const args = { id: "infra/missing", body: "x" };
        const args0 = spec === read ? { id: args.id } : args;
        const fast = await buildAuthRequest(c.store, "test", spec, args0, policy);
        expect(c.reads()).toBe(0);
        const full = await buildAuthRequest(kb.runtime.store, "test", spec, args0);
        expect(authorize(policy, fast)).toEqual(authorize(policy, full));
      }
    }
  });

  it("still reads the facts a restricted principal's decision depends on", async () => {
    const c = counting(kb.runtime.store);
    const readOnly: Policy = { admin: false, rules: [rule("r")] };
    const req = await buildAuthRequest(c.store, "test", write, { id: "a/b", body: "x" }, readOnly);
    expect(c.reads()).toBeGreaterThan(0);
    expect(req.targets).toHaveLength(1);
    const scoped: Policy = { admin: false, rules: [rule("r", ["infra"])] };
    const hidden = await buildAuthRequest(c.store, "test", read, { id: "other/x" }, scoped);
    expect(authorize(scoped, hidden)).toMatchObject({ allow: false, reason: "not_found_hidden" });
  });
});
