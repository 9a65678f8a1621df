/**
 * Introspection as an operator runs it: the built binary, `auth.oauth.introspection` in YAML
 * with the client secret in the variable `client_secret_env` names, a real provider issuing
 * opaque tokens, the MCP SDK client signing in and calling a tool, the audit log on disk. The
 * principal is audited; neither the token nor the secret appears in the process's output or
 * the audit log. Without the variable the server refuses to start, naming the key.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandbox } from "../../e2e/audit/helpers.js";
import { runBin, startServer } from "../../e2e/helpers.js";
import { textOf } from "../../support/mcp-kit.js";
import { sdkSignIn } from "./fixture.js";
import { MCP_SCOPE, RS_CLIENT, RS_SECRET, startIdp, type TestIdp } from "./idp.js";

let idp: TestIdp;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  idp = await startIdp();
  idp.format = "opaque";
}, 60_000);
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
  await idp?.close();
});

function writeConfig(dir: string): string {
  const file = join(dir, "cartographer.yaml");
  writeFileSync(
    file,
    `http: "127.0.0.1:0"
kbs:
  - { path: kbs/lab, name: lab }
auth:
  roles:
    - { name: alpha-notes, rules: [{ kb: lab, access: r }] }
  oauth:
    issuer: ${idp.issuer}
    roles_claim: groups
    scopes: [${MCP_SCOPE}]
    introspection:
      client_id: ${RS_CLIENT}
      client_secret_env: CARTO_RS_SECRET
      cache_seconds: 30
audit:
  log: audit/audit.jsonl
`,
  );
  return file;
}

describe("auth.oauth.introspection in the built server", () => {
  it("serves an opaque token's user, audits the principal, and leaks neither token nor secret", async () => {
    const box = await sandbox();
    cleanups.push(box.cleanup);
    const config = writeConfig(box.dir);
    const server = await startServer(["--config", config], {
      cwd: box.dir,
      env: { ...box.env, CARTO_RS_SECRET: RS_SECRET },
    });
    cleanups.push(() => server.stop());
    idp.loginAs = "alice";
    const { client, provider } = await sdkSignIn(idp, server.url, "/mcp");
    const token = provider.saved?.access_token as string;
    expect(token.split(".")).toHaveLength(1);
    const listed = await client.callTool({ name: "concept_list", arguments: { kb: "lab" } });
    expect(listed.isError, textOf(listed)).toBeFalsy();
    await client.close();
    await server.stop();
    const audit = readFileSync(join(box.dir, "audit", "audit.jsonl"), "utf8");
    expect(audit).toContain(`"principal_id":"oauth:${new URL(idp.issuer).host}:alice"`);
    for (const text of [audit, server.stdout(), server.stderr()]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(RS_SECRET);
    }
  }, 90_000);

  it("refuses to start when the secret's variable is unset, naming the key", async () => {
    const box = await sandbox();
    cleanups.push(box.cleanup);
    const run = await runBin(["serve", "--config", writeConfig(box.dir)], {
      cwd: box.dir,
      env: box.env,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /auth\.oauth\.introspection\.client_secret_env: the environment variable CARTO_RS_SECRET is not set/,
    );
  }, 60_000);
});
