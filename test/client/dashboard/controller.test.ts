/**
 * The dashboard's actions are the client commands with their output captured: nothing reaches
 * the terminal's streams, and the status line says what happened (the exit code and the last
 * thing the command said when it did not succeed).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dashboardDeps, summarize } from "../../../src/client/dashboard/controller.js";
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
  sb = await sandbox({});
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

describe("summarize", () => {
  it("says done on 0, and the exit code with the last line otherwise", () => {
    expect(summarize({ kind: "connect", provider: "claude" }, 0, ["whatever"])).toBe(
      "connected claude",
    );
    expect(summarize({ kind: "sync-all" }, 2, ["a", "server unreachable at x"])).toBe(
      "sync failed (exit 2): server unreachable at x",
    );
    expect(summarize({ kind: "sync", provider: "codex" }, 1, [])).toBe(
      "sync codex left something to look at (exit 1)",
    );
  });
});

describe("dashboardDeps", () => {
  it("runs connect, sync and disconnect without writing to the terminal's streams", async () => {
    await sb.write(".cartographer.yaml", `server_url: ${server.url}\n`);
    const deps = dashboardDeps(sb.io, undefined);
    expect(await deps.run({ kind: "connect", provider: "claude" })).toEqual({
      text: "connected claude",
      ok: true,
    });
    expect(JSON.parse(await sb.read(PROVIDER_FILES.claude)).mcpServers.cartographer).toBeDefined();
    expect((await deps.snapshot()).providers[0]).toMatchObject({ id: "claude", badge: "in-sync" });
    expect(await deps.run({ kind: "sync-all" })).toMatchObject({ ok: true });
    expect(await deps.run({ kind: "disconnect", provider: "claude" })).toMatchObject({ ok: true });
    expect(await sb.exists(PROVIDER_FILES.claude)).toBe(false);
    expect(sb.io.out()).toBe("");
    expect(sb.io.err()).toBe("");
  });

  it("words a failure from what the command said", async () => {
    const deps = dashboardDeps(sb.io, "elsewhere.yaml");
    const outcome = await deps.run({ kind: "sync-all" });
    expect(outcome.ok).toBe(false);
    expect(outcome.text).toMatch(
      /^sync failed \(exit 2\): no .*elsewhere\.yaml; run cartographer connect first$/,
    );
    expect(sb.io.err()).toBe("");
  });
});
