/**
 * tools/list through the SDK Client: annotations exactly as registered, the agent profile hides
 * advanced tools (which stay callable), and the agent-profile list of a default KB matches the
 * golden file byte for byte.
 *
 * When a tool description or schema changes ON PURPOSE, regenerate the golden file with
 *   UPDATE_GOLDEN=1 npx vitest run test/mcp/kb-surface.listing.test.ts
 * and review the diff of test/tools/golden/agent-tools-list.json before committing it.
 */
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolsFor } from "../../src/tools/registry.js";
import { commitCount, okJson, type SurfaceKb, surfaceKb } from "./surface-kb.js";

const GOLDEN = resolve(import.meta.dirname, "../tools/golden/agent-tools-list.json");

let agent: SurfaceKb;
let full: SurfaceKb;
beforeAll(async () => {
  agent = await surfaceKb({ profile: "agent" });
  full = await surfaceKb({ profile: "full", allowArtifactWrite: true });
});
afterAll(async () => {
  await agent.cleanup();
  await full.cleanup();
});

describe("tools/list", () => {
  it("annotations readOnlyHint/destructiveHint/idempotentHint are exactly as registered", async () => {
    const listed = (await full.client.listTools()).tools;
    const specs = toolsFor(full.surface.settings);
    expect(listed.map((t) => t.name)).toEqual(specs.map((s) => s.name));
    for (const spec of specs) {
      const tool = listed.find((t) => t.name === spec.name);
      const want: Record<string, boolean> = {};
      if (spec.readOnly) want.readOnlyHint = true;
      if (spec.destructive !== undefined) want.destructiveHint = spec.destructive;
      if (spec.idempotent !== undefined) want.idempotentHint = spec.idempotent;
      expect(tool?.annotations ?? {}, spec.name).toEqual(want);
      if (!spec.readOnly) expect(tool?.annotations?.readOnlyHint, spec.name).toBeUndefined();
    }
    // The registry marks every destructive tool; none of them is read-only.
    const destructive = listed.filter((t) => t.annotations?.destructiveHint === true);
    expect(destructive.map((t) => t.name).sort()).toEqual(
      specs
        .filter((s) => s.destructive === true)
        .map((s) => s.name)
        .sort(),
    );
    expect(destructive.length).toBeGreaterThan(0);
  });

  it("the agent profile hides advanced tools, which stay callable", async () => {
    const names = (await agent.client.listTools()).tools.map((t) => t.name);
    const specs = toolsFor(agent.surface.settings);
    const advanced = specs.filter((s) => s.advanced).map((s) => s.name);
    expect(advanced.length).toBeGreaterThan(0);
    expect(names).toEqual(specs.filter((s) => !s.advanced).map((s) => s.name));
    for (const name of advanced) expect(names).not.toContain(name);
    // Hidden but callable: a read (commit_gate) and a write (reindex makes no commit).
    expect(okJson(await agent.call("commit_gate", {})).clean).toBe(true);
    const before = commitCount(agent.root);
    await agent.call("concept_write", { id: "a/x", frontmatter: { type: "note" }, body: "x\n" });
    const batch = await agent.call("concept_batch", {
      operations: [{ op: "delete", id: "a/x" }],
    });
    expect(batch.isError ?? false).toBe(false);
    expect(commitCount(agent.root)).toBe(before + 2);
  });

  it("the agent-profile tools/list of a default KB matches the golden file byte for byte", async () => {
    const result = await agent.client.listTools();
    const text = `${JSON.stringify(result, null, 2)}\n`;
    // What the client received is exactly what the surface serialized once (no drift in transit).
    expect(JSON.stringify(result)).toBe(agent.surface.descriptors("agent").json);
    if (process.env.UPDATE_GOLDEN === "1") {
      await writeFile(GOLDEN, text);
      return;
    }
    const golden = await readFile(GOLDEN, "utf8").catch(() => "");
    expect(
      text === golden,
      "agent tools/list differs from test/tools/golden/agent-tools-list.json; if the change is " +
        "intended, run UPDATE_GOLDEN=1 npx vitest run test/mcp/kb-surface.listing.test.ts and review the diff",
    ).toBe(true);
  });
});
