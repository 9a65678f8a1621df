/**
 * Against a server from before provisioning (no `artifact_manifest`: the stand-in of
 * test/client answers `tool not found`, as the real call pipeline does), the commands keep
 * their old behaviour: entries and blocks are written, provisioning is a note; the lockfile
 * records only connect's own sections (the entry and the block), no artifact.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect, status, sync } from "../../src/client/commands.js";
import { type FakeServer, type Sandbox, sandbox, startFakeServer } from "./helpers.js";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({ shape: "routed", kbs: ["alpha"], version: "1.0.0" });
  sb = await sandbox({ CARTO_TOKEN: "tok" });
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

describe("an older server without artifact_manifest", () => {
  it("connect and sync write the entries, say provisioning is skipped, and lock only the entries and blocks", async () => {
    const code = await connect(sb.io, {
      providers: ["claude", "codex"],
      serverUrl: server.url,
      tokenEnv: "CARTO_TOKEN",
    });
    expect(code, sb.io.err()).toBe(0);
    expect(sb.io.err()).toMatch(
      /note: the server has no artifact_manifest tool \(an older server\)/,
    );
    expect(await sb.exists(".claude.json")).toBe(true);
    const lock = await sb.read(".cartographer-sync.lock.json");
    const bindings = JSON.parse(lock).bindings as {
      files: unknown[];
      sections: { id: string }[];
    }[];
    expect(bindings.map((b) => b.files.length)).toEqual([0, 0]);
    for (const b of bindings)
      expect(b.sections.map((s) => s.id).sort()).toEqual(["connect:entry", "connect:instructions"]);
    sb.io.reset();
    expect(await sync(sb.io)).toBe(0);
    expect(await sb.read(".cartographer-sync.lock.json")).toBe(lock);
  });

  it("status stays in sync and its JSON says provisioning was skipped", async () => {
    await connect(sb.io, { providers: ["claude"], serverUrl: server.url, tokenEnv: "CARTO_TOKEN" });
    sb.io.reset();
    expect(await status(sb.io, { json: true })).toBe(0);
    const json = JSON.parse(sb.io.out());
    expect(json.state).toBe("in-sync");
    expect(json.provisioning).toMatchObject({ state: "skipped", providers: [] });
    expect(json.provisioning.message).toMatch(/no artifact_manifest tool/);
  });
});
