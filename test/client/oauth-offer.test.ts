/**
 * connect and status against a server that signs clients in through an identity provider (RFC
 * 9728 metadata naming an authorization server): the entries carry no token variable, because
 * the agent tools sign in themselves, and status explains that instead of reporting a missing
 * token, and doctor, offline, explains the token-less entry (the agent tool signs in by OAuth)
 * even with the server down. Against a static-token-only server the same connect is refused,
 * naming --token-env; with a token_env, doctor has no such note.
 * A real Cartographer HTTP server on 127.0.0.1; the provider is never contacted (no token is
 * validated), so its address need not answer.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, doctor, status } from "../../src/client/commands.js";
import { oauthOffer } from "../../src/client/oauth-offer.js";
import { oauthSettings, startOAuthServer } from "../auth/oauth/fixture.js";
import { PROVIDER_FILES, type Sandbox, sandbox } from "./helpers.js";

const ISSUER = "http://127.0.0.1:9/realms/team";

let cart: Awaited<ReturnType<typeof startOAuthServer>> | undefined;
let sb: Sandbox | undefined;
afterEach(async () => {
  await cart?.close();
  await sb?.cleanup();
  cart = undefined;
  sb = undefined;
});

describe("connect to an OAuth server", () => {
  it("writes the entry without a token and says the agent tool signs in; status agrees", async () => {
    cart = await startOAuthServer(oauthSettings(ISSUER));
    expect(await oauthOffer(cart.server.url)).toEqual([ISSUER]);
    sb = await sandbox({});
    const code = await connect(sb.io, {
      providers: ["claude"],
      serverUrl: `${cart.server.url}/mcp`,
    });
    expect(sb.io.err()).toContain(`signs in through ${ISSUER} (OAuth)`);
    expect(code).toBe(0);
    const claude = JSON.parse(await sb.read(PROVIDER_FILES.claude));
    expect(claude.mcpServers.cartographer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(claude.mcpServers.cartographer.headers).toBeUndefined();

    sb.io.reset();
    const statusCode = await status(sb.io, { json: true });
    const report = JSON.parse(sb.io.out()) as { blockers: string[]; notes: string[] };
    expect(report.blockers).toEqual([]);
    expect(report.notes.join("\n")).toContain("signs in through");
    expect(statusCode).toBe(0);
  }, 60_000);

  it("doctor (offline) explains the token-less entry instead of reporting a missing token", async () => {
    cart = await startOAuthServer(oauthSettings(ISSUER));
    sb = await sandbox({});
    expect(
      await connect(sb.io, { providers: ["claude"], serverUrl: `${cart.server.url}/mcp` }),
    ).toBe(0);
    await cart.close(); // doctor never asks the server
    cart = undefined;

    sb.io.reset();
    expect(await doctor(sb.io, { json: true })).toBe(0);
    const report = JSON.parse(sb.io.out()) as {
      state: string;
      blockers: string[];
      notes: string[];
    };
    expect(report.state).toBe("in-sync");
    expect(report.blockers).toEqual([]);
    expect(report.notes).toHaveLength(1);
    expect(report.notes[0]).toMatch(/^claude: the entries carry no token \(.*names no token_env\)/);
    expect(report.notes[0]).toContain("/.well-known/oauth-protected-resource");
    expect(report.notes[0]).toContain("in Claude Code: /mcp, then Authenticate");
    expect(report.notes[0]).toContain("cartographer status tells which");

    sb.io.reset();
    expect(await doctor(sb.io)).toBe(0);
    expect(sb.io.out()).toMatch(/^note: claude: the entries carry no token/m);

    // With a token variable the entries send a token: nothing to explain.
    await sb.write(
      ".cartographer.yaml",
      `${await sb.read(".cartographer.yaml")}token_env: CARTO_T\n`,
    );
    sb.io.reset();
    await doctor(sb.io, { json: true });
    const withToken = JSON.parse(sb.io.out()) as { notes: string[] };
    expect(withToken.notes.join("\n")).not.toContain("carry no token");
  }, 60_000);

  it("a static-token-only server offers no OAuth: connect without --token-env is refused", async () => {
    cart = await startOAuthServer(null);
    expect(await oauthOffer(cart.server.url)).toBeNull();
    sb = await sandbox({});
    const code = await connect(sb.io, {
      providers: ["claude"],
      serverUrl: `${cart.server.url}/mcp`,
    });
    expect(code).not.toBe(0);
    expect(sb.io.err()).toContain("--token-env");
    expect(await sb.exists(PROVIDER_FILES.claude)).toBe(false);
  }, 60_000);
});
