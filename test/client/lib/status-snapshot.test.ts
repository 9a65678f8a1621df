/**
 * The status snapshot: the D120 MCP-config badge counts the expected entry names the file holds
 * (all: in-sync, some: partial, none or unreadable: missing), drift is counted per artifact kind,
 * and an absent yaml or an unreachable server are facts of the snapshot, not failures.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect } from "../../../src/client/commands.js";
import { loadConfig } from "../../../src/client/config.js";
import { configPath } from "../../../src/client/lib/io.js";
import { driftByKind, mcpBadge, statusSnapshot } from "../../../src/client/lib/status-snapshot.js";
import type {
  FileAction,
  ProvisionPlan,
  SectionAction,
} from "../../../src/client/provision/plan.js";
import {
  type FakeServer,
  PROVIDER_FILES,
  type Sandbox,
  sandbox,
  startFakeServer,
} from "../helpers.js";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({ shape: "per-kb", kbs: ["alpha", "beta"], version: "2.0.0" });
  sb = await sandbox({});
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

const snap = async () => statusSnapshot(sb.io, await loadConfig(configPath(sb.io, {})));

describe("mcpBadge (Go's D120)", () => {
  it("is in-sync with every expected name, partial with some, missing with none", () => {
    expect(mcpBadge(2, 0, false)).toBe("in-sync");
    expect(mcpBadge(2, 1, false)).toBe("partial");
    expect(mcpBadge(2, 2, false)).toBe("missing");
    expect(mcpBadge(0, 0, false)).toBe("missing");
    expect(mcpBadge(2, 0, true)).toBe("missing");
  });
});

describe("driftByKind", () => {
  const file = (kind: FileAction["kind"], origin: string): FileAction => ({
    kind,
    path: `/h/${origin}`,
    origin,
  });
  const section = (kind: SectionAction["kind"], origins: string[]): SectionAction =>
    ({ kind, section: { file: "/h/f.json", id: "x", desired: null, origins } }) as SectionAction;

  it("counts every non-quiet action once per kind it touches; unchanged, gone and held are quiet", () => {
    const plan: ProvisionPlan = {
      files: [
        file("restore", "notes/skill/a"),
        file("edited", "notes/skill/b"),
        file("create", "notes/agent/c,notes/skill/d"),
        file("unchanged", "notes/hook/e"),
        file("held", "notes/hook/f"),
        file("gone", "notes/hook/g"),
      ],
      sections: [section("update", ["cartographer/entry"]), section("unchanged", ["notes/mcp/h"])],
    };
    expect(driftByKind(plan)).toEqual([
      { kind: "skill", count: 3 },
      { kind: "agent", count: 1 },
      { kind: "entry", count: 1 },
    ]);
    expect(driftByKind({ files: [], sections: [] })).toEqual([]);
  });
});

describe("statusSnapshot", () => {
  it("without a yaml: every provider disconnected, the server's KBs, no report", async () => {
    await sb.write(".cartographer.yaml", `server_url: ${server.url}\n`);
    await sb.write(".claude/settings.json", "{}");
    const s = await statusSnapshot(sb.io, {
      ...(await loadConfig(configPath(sb.io, {}))),
      exists: false,
    });
    expect(s.configExists).toBe(false);
    expect(s.report).toBeUndefined();
    expect(s.server.reachable && s.server.health.kbStates.map((k) => k.name)).toEqual([
      "alpha",
      "beta",
    ]);
    expect(s.providers.map((p) => [p.id, p.connected])).toEqual([
      ["claude", false],
      ["codex", false],
      ["opencode", false],
      ["kiro", false],
      ["antigravity", false],
    ]);
    expect(s.providers.find((p) => p.id === "claude")?.detected).toBe(true);
    expect(s.providers.find((p) => p.id === "kiro")?.detected).toBe(false);
  });

  it("badges a connected provider in-sync, partial and missing as its file loses entries", async () => {
    expect(await connect(sb.io, { providers: ["claude"], serverUrl: server.url })).toBe(0);
    const claude = () => s.providers.find((p) => p.id === "claude");
    let s = await snap();
    expect(claude()).toMatchObject({ connected: true, scope: "user", badge: "in-sync" });
    expect(s.report?.checks[0]?.state).toBe("in-sync");

    const file = JSON.parse(await sb.read(PROVIDER_FILES.claude));
    const names = Object.keys(file.mcpServers);
    expect(names).toHaveLength(2);
    // A stale URL keeps the name: the badge counts names (D120), the check calls it partial.
    file.mcpServers[names[0] as string].url = "http://elsewhere/mcp";
    await sb.write(PROVIDER_FILES.claude, JSON.stringify(file));
    s = await snap();
    expect(claude()?.badge).toBe("in-sync");
    expect(claude()?.check?.stale).toEqual([names[0]]);

    delete file.mcpServers[names[0] as string];
    await sb.write(PROVIDER_FILES.claude, JSON.stringify(file));
    s = await snap();
    expect(claude()?.badge).toBe("partial");

    delete file.mcpServers[names[1] as string];
    await sb.write(PROVIDER_FILES.claude, JSON.stringify(file));
    s = await snap();
    expect(claude()?.badge).toBe("missing");
    expect(s.report?.state).toBe("drift");
  });

  it("an unreachable server is a fact: connected providers listed, no badge, no report", async () => {
    expect(await connect(sb.io, { providers: ["codex"], serverUrl: server.url })).toBe(0);
    await server.close();
    const s = await snap();
    expect(s.server.reachable).toBe(false);
    expect(!s.server.reachable && s.server.error.message).toMatch(/server unreachable at/);
    expect(s.report).toBeUndefined();
    const codex = s.providers.find((p) => p.id === "codex");
    expect(codex).toMatchObject({ connected: true, drift: [] });
    expect(codex?.badge).toBeUndefined();
  });
});
