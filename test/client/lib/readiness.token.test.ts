/**
 * status and doctor tell when the agent tools cannot authenticate: the token variable unset
 * (both; doctor without asking the server), a token the server refuses with 401, or a server
 * that wants a token when the yaml names no variable (status). The variable is named, its value
 * never printed. Against the stand-in server of helpers.ts (test/e2e/client does the same
 * against the real one).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connect, doctor, status } from "../../../src/client/commands.js";
import { type FakeServer, type Sandbox, sandbox, startFakeServer } from "../helpers.js";

const GOOD = "good-token-0123456789";
const WRONG = "wrong-token-0123456789";

let server: FakeServer;
let sb: Sandbox;

beforeEach(async () => {
  server = await startFakeServer({ shape: "routed", kbs: ["alpha", "beta"], token: GOOD });
  sb = await sandbox({ CARTO_TOKEN: GOOD });
  expect(
    await connect(sb.io, {
      providers: ["claude", "codex"],
      serverUrl: server.url,
      tokenEnv: "CARTO_TOKEN",
    }),
  ).toBe(0);
  sb.io.reset();
});
afterEach(async () => {
  await server.close();
  await sb.cleanup();
});

const printed = () => sb.io.out() + sb.io.err();

describe("the token the agent tools send", () => {
  it("with the right token: status and doctor exit 0", async () => {
    expect(await status(sb.io)).toBe(0);
    expect(sb.io.out()).toMatch(/in sync\n$/);
    expect(await doctor(sb.io)).toBe(0);
  });

  it("variable unset: status and doctor exit 1 naming it; doctor says so with the server down", async () => {
    sb.io.env = {};
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toContain(
      "not usable: $CARTO_TOKEN is not set: claude, codex read the bearer token from it",
    );
    sb.io.reset();
    expect(await status(sb.io, { json: true })).toBe(1);
    const report = JSON.parse(sb.io.out());
    expect(report.state).toBe("blocked");
    expect(report.blockers).toHaveLength(1); // one message, not one more from the probe

    await server.close();
    sb.io.reset();
    expect(await doctor(sb.io)).toBe(1);
    expect(sb.io.out()).toContain("$CARTO_TOKEN is not set");
    // An empty value is no token either.
    sb.io.env = { CARTO_TOKEN: "" };
    sb.io.reset();
    expect(await doctor(sb.io)).toBe(1);
  });

  it("a token the server refuses (401): status exits 1 naming the variable, never the value", async () => {
    sb.io.env = { CARTO_TOKEN: WRONG };
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toMatch(
      /not usable: the server refused the token in \$CARTO_TOKEN \(HTTP 401 at http:\/\/127\.0\.0\.1:\d+\/mcp\/routed\): claude, codex cannot connect/,
    );
    expect(printed()).not.toContain(WRONG);
    expect(printed()).not.toContain(GOOD);
    // doctor is offline: the variable is set, so it has nothing to say about the token.
    sb.io.reset();
    expect(await doctor(sb.io)).toBe(0);
  });

  it("no token_env in the yaml but the server wants a token: status says how to add one", async () => {
    const yaml = (await sb.read(".cartographer.yaml")).replace(/^token_env:.*\n/m, "");
    await sb.write(".cartographer.yaml", yaml);
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toMatch(
      /the server requires a bearer token \(HTTP 401 at .*\) but \.cartographer\.yaml names no token_env: .*run cartographer connect --token-env NAME/,
    );
  });

  it("Antigravity without --write-token against a server with auth: its entry carries no token", async () => {
    expect(await connect(sb.io, { providers: ["antigravity"] })).toBe(0);
    sb.io.reset();
    expect(await status(sb.io)).toBe(1);
    expect(sb.io.out()).toMatch(
      /not usable: antigravity: the server requires a bearer token \(HTTP 401 at .*\) and the entry carries none; run cartographer connect antigravity --write-token/,
    );
    expect(sb.io.out()).not.toMatch(/claude, codex cannot connect/);
  });
});
