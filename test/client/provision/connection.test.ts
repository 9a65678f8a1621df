/**
 * Connect's own part goes through the provisioning engine (src/client/provision/connection.ts):
 * the cartographer entry and the instructions block get the engine's symlink checks before
 * anything is read — a dry run too — and are recorded in the lockfile like every managed
 * section, so a sync that changes nothing rewrites nothing and disconnect forgets them.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect, disconnect, sync } from "../../../src/client/commands.js";
import { tempDir } from "../../support/temp-dir.js";
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
  server = await startFakeServer({ shape: "routed", kbs: ["alpha"], version: "2.0.0" });
  sb = await sandbox();
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

const ESCAPE =
  /\.mcp\.json is a symlink to .*, outside .*; nothing is written through a symlink that leaves your folders/;

interface LockJson {
  bindings: {
    provider: string;
    scope: string;
    files: unknown[];
    sections: { file: string; id: string; sha256: string; origins: string[] }[];
  }[];
}
const lock = async (): Promise<LockJson> =>
  JSON.parse(await sb.read(".cartographer-sync.lock.json")) as LockJson;

describe("a symlinked .mcp.json that leaves the project", () => {
  it("is refused before it is read, with the link named; nothing is written, a dry run says so too", async () => {
    const outside = tempDir("carto-outside-");
    try {
      const target = path.join(outside.dir, "mcp.json");
      await fs.writeFile(target, "this is not JSON {");
      await fs.symlink(target, path.join(sb.cwd, ".mcp.json"));
      const project = { providers: ["claude"], scope: "project" as const, serverUrl: server.url };
      expect(await connect(sb.io, { ...project, dryRun: true })).toBe(2);
      expect(sb.io.err()).toMatch(ESCAPE);
      expect(sb.io.err()).not.toMatch(/not valid JSON/);
      expect(sb.io.out()).not.toMatch(/would write/);
      sb.io.reset();
      expect(await connect(sb.io, project)).toBe(2);
      expect(sb.io.err()).toMatch(ESCAPE);
      expect(await fs.readFile(target, "utf8")).toBe("this is not JSON {");
      // The block comes after the entry: it is not written for an entry that was not.
      expect(await sb.exists("project/CLAUDE.md")).toBe(false);

      await fs.writeFile(target, "{}\n");
      sb.io.reset();
      expect(await connect(sb.io, { ...project, dryRun: true })).toBe(2);
      expect(sb.io.err()).toMatch(ESCAPE);
    } finally {
      outside.cleanup();
    }
  });
});

describe("the entry and the block in the lockfile", () => {
  it("are recorded like other managed sections; an unchanged sync rewrites nothing, a hand edit is restored, disconnect forgets them", async () => {
    expect(await connect(sb.io, { providers: ["claude", "codex"], serverUrl: server.url })).toBe(0);
    const first = await sb.read(".cartographer-sync.lock.json");
    const claude = (await lock()).bindings.find((b) => b.provider === "claude");
    expect(claude?.scope).toBe("user");
    expect(claude?.files).toEqual([]);
    const sections = [...(claude?.sections ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(sections.map((s) => [s.id, path.relative(sb.home, s.file), s.origins])).toEqual([
      ["connect:entry", PROVIDER_FILES.claude, ["cartographer/entry"]],
      ["connect:instructions", ".claude/CLAUDE.md", ["cartographer/instructions"]],
    ]);
    for (const s of sections) expect(s.sha256).toMatch(/^[0-9a-f]{64}$/);

    sb.io.reset();
    expect(await sync(sb.io)).toBe(0);
    expect(await sb.read(".cartographer-sync.lock.json")).toBe(first);

    const written = await sb.read(PROVIDER_FILES.claude);
    const edited = JSON.parse(written);
    edited.mcpServers.cartographer.url = "http://elsewhere.example/mcp";
    await sb.write(PROVIDER_FILES.claude, `${JSON.stringify(edited, null, 2)}\n`);
    expect(await sync(sb.io)).toBe(0);
    expect(await sb.read(PROVIDER_FILES.claude)).toBe(written);
    expect(await sb.read(".cartographer-sync.lock.json")).toBe(first);

    expect(await disconnect(sb.io, { providers: ["claude", "codex"] })).toBe(0);
    expect((await lock()).bindings).toEqual([]);
  });
});
