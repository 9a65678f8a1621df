import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/types.js";
import { silentLogger } from "../../src/logger.js";
import { LOCAL_ADMIN } from "../../src/mcp/context.js";
import type { KbSurface } from "../../src/mcp/kb-surface.js";
import { RoutedSurfaceCache } from "../../src/mcp/routed-cache.js";
import { createMcpServer } from "../../src/mcp/server.js";
import type { ToolSurface } from "../../src/mcp/surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import {
  MemoryAudit,
  must,
  principal,
  type TempMounts,
  tempMounts,
  textOf,
} from "../support/mcp-kit.js";

let kbs: TempMounts;
let surfaces: KbSurface[];
const audit = new MemoryAudit();
beforeAll(async () => {
  kbs = await tempMounts(["a", "b", "c"], { artifacts: ["b"] });
  surfaces = kbs.mounts.map((m) => surfaceForMount(m, { audit, logger: silentLogger }));
});
afterAll(async () => kbs.cleanup());

async function connect(
  surface: ToolSurface,
  p: Principal = LOCAL_ADMIN,
  profile: "agent" | "full" = "full",
) {
  const server = createMcpServer(surface, {
    name: "cartographer",
    version: "test",
    profile,
    principal: p,
    transport: "in-memory",
    metadataGate: () =>
      p.policy.admin || p.policy.rules.some((r) => surface.kbNames.includes(r.kb)),
  });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(ct);
  return client;
}

const bytesOf = async (client: Client) => JSON.stringify(await client.listTools());

describe("routed surface (D187/D288)", () => {
  it("per-KB tools/list is byte-identical before and after routed surfaces were built and used", async () => {
    const per = await connect(must(surfaces[0]));
    const before = await Promise.all(
      ["agent", "full"].map(async (p) =>
        bytesOf(await connect(must(surfaces[0]), LOCAL_ADMIN, p as "agent")),
      ),
    );
    const cache = new RoutedSurfaceCache(surfaces);
    const routed = await connect(cache.get(["a", "b", "c"]));
    await routed.listTools();
    await routed.callTool({ name: "concept_list", arguments: { kb: "a" } });
    await connect(cache.get(["a"])).then((c) => c.listTools());
    const after = await Promise.all(
      ["agent", "full"].map(async (p) =>
        bytesOf(await connect(must(surfaces[0]), LOCAL_ADMIN, p as "agent")),
      ),
    );
    expect(after).toEqual(before);
    expect(await bytesOf(per)).toBe(before[1]);
  });

  it("kb is an enum of the binding, required with 2+; the union registers artifact_write once", async () => {
    const cache = new RoutedSurfaceCache(surfaces);
    const { tools } = await (await connect(cache.get(["c", "a", "b"]))).listTools();
    expect(tools.filter((t) => t.name === "artifact_write")).toHaveLength(1);
    for (const t of tools) {
      expect(t.inputSchema.properties?.kb).toEqual({ type: "string", enum: ["a", "b", "c"] });
      expect(t.inputSchema.required).toContain("kb");
      expect(t.name).not.toMatch(/__/);
    }
    const perA = await (await connect(must(surfaces[0]))).listTools();
    expect(perA.tools.some((t) => t.name === "artifact_write")).toBe(false);
  });

  it("with exactly one KB bound the schemas carry no kb at all", async () => {
    const cache = new RoutedSurfaceCache(surfaces);
    const routedA = await (await connect(cache.get(["a"]))).listTools();
    const perA = await (await connect(must(surfaces[0]))).listTools();
    expect(JSON.stringify(routedA)).toBe(JSON.stringify(perA));
    const r = await (await connect(cache.get(["a"]))).callTool({
      name: "kb_status",
      arguments: {},
    });
    expect(r.isError).toBeFalsy();
  });

  it("calls: kb missing, outside the binding, and a tool the KB does not register", async () => {
    const cache = new RoutedSurfaceCache(surfaces);
    const client = await connect(cache.get(["a", "b"]));
    const missing = await client.callTool({ name: "concept_list", arguments: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/'kb' is required.*a, b/);
    const outside = await client.callTool({ name: "concept_list", arguments: { kb: "c" } });
    expect(textOf(outside)).toMatch(/bound to \(a, b\).*"c"/);
    const gated = await client.callTool({
      name: "artifact_write",
      arguments: { kb: "a", path: "x.txt", content: "y" },
    });
    expect(gated.isError).toBe(true);
    expect(textOf(gated)).toContain("artifact_write");
    expect(textOf(gated)).toContain("'a'");
    expect(textOf(gated)).toContain("allow_artifact_write");
    const ok = await client.callTool({
      name: "artifact_write",
      arguments: { kb: "b", path: "skills/x/x.txt", content: "y" },
    });
    expect(ok.isError).toBeFalsy();
  });

  it("dispatch strips kb and goes through the target's callTool: audited once, naming the real KB", async () => {
    const cache = new RoutedSurfaceCache(surfaces);
    const client = await connect(cache.get(["a", "b", "c"]));
    audit.records.length = 0;
    const r = await client.callTool({
      name: "concept_read",
      arguments: { kb: "c", id: "nope/missing" },
    });
    expect(r.isError).toBe(true);
    expect(audit.records.map((x) => [x.phase, x.kb, x.tool])).toEqual([
      ["attempt", "c", "concept_read"],
      ["completion", "c", "concept_read"],
    ]);
    expect(must(audit.records[0]).resources).toEqual({ id: "nope/missing" });
  });

  it("authorization happens at the target KB: a token for a only is refused on b, allowed on a", async () => {
    const cache = new RoutedSurfaceCache(surfaces);
    const onlyA = principal("only-a", [{ kb: "a", access: "r" }]);
    const client = await connect(cache.get(["a", "b"]), onlyA);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(textOf(await client.callTool({ name: "kb_status", arguments: { kb: "b" } }))).toBe(
      "forbidden",
    );
    expect(
      (await client.callTool({ name: "kb_status", arguments: { kb: "a" } })).isError,
    ).toBeFalsy();
  });

  it("metadata gate: no readable KB in the binding → initialize is forbidden", async () => {
    const cache = new RoutedSurfaceCache(surfaces);
    await expect(
      connect(cache.get(["b", "c"]), principal("only-a", [{ kb: "a", access: "r" }])),
    ).rejects.toThrow(/forbidden/);
  });

  it("one routed surface per distinct KB set, cached and bounded", () => {
    const cache = new RoutedSurfaceCache(surfaces, 2);
    const ab = cache.get(["a", "b"]);
    expect(cache.get(["b", "a", "b"])).toBe(ab);
    cache.get(["a"]);
    cache.get(["c"]);
    expect(cache.size).toBe(2);
    expect(cache.get(["a", "b"])).not.toBe(ab);
  });
});
