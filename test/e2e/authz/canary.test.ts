/**
 * Token canary (docs/auth.md "Tokens": a token is never printed): distinctive token values planted
 * in the environment of the BUILT binary never appear in its stdout, stderr, audit files, or any
 * response body or header — not raw, not base64, not percent-encoded — whatever the request; nor in
 * a config error.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, GIT_ENV, type RunningServer, runBin, startServer, tempDir } from "../helpers.js";

const ADMIN = "CANARYadmin7f3e9b2d-Zq8";
const READER = "CANARYreaderc41a0e55/Xw+";
const CANARIES = [ADMIN, READER];

/** Every form a careless log line or header could carry a token in. */
function forms(token: string): string[] {
  return [
    token,
    Buffer.from(token).toString("base64"),
    Buffer.from(token).toString("base64url"),
    encodeURIComponent(token),
    Buffer.from(`Bearer ${token}`).toString("base64"),
  ];
}

function assertClean(label: string, text: string): void {
  for (const token of CANARIES)
    for (const form of forms(token))
      expect(text.includes(form), `${label} contains ${form}`).toBe(false);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

let sandbox: ReturnType<typeof tempDir>;
let server: RunningServer;
const seen: string[] = [];

beforeAll(async () => {
  sandbox = tempDir("carto-canary-");
  server = await startServer(
    [
      "--kb",
      join(sandbox.dir, "notes"),
      "--init",
      "--http",
      "127.0.0.1:0",
      "--audit-log",
      join(sandbox.dir, "audit", "audit.log"),
    ],
    {
      cwd: sandbox.dir,
      env: cleanEnv({ ...GIT_ENV, CARTOGRAPHER_TOKENS: `${ADMIN},${READER}|kb:notes:r` }),
    },
  );
}, 60_000);
afterAll(async () => {
  await server?.stop();
  sandbox?.cleanup();
});

async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(`${server.url}${path}`, init);
  const headers = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join("\n");
  seen.push(`${res.status} ${path}\n${headers}\n${await res.clone().text()}`);
  return res;
}

const rpc = (method: string, params: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
const post = (token: string | null, body: string, path = "/mcp/notes", extra = {}) =>
  send(path, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      ...extra,
    },
    body,
  });

describe("token canary", () => {
  it("no token value reaches any output, audit file, response body or header", async () => {
    const init = rpc("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "canary", version: "1" },
    });
    const read = (id: string) => rpc("tools/call", { name: "concept_read", arguments: { id } });
    const write = rpc("tools/call", {
      name: "concept_write",
      arguments: { id: "canary-note", frontmatter: { type: "note", title: "c" }, body: "b" },
    });
    expect((await post(ADMIN, init)).status).toBe(200);
    expect((await post(ADMIN, write)).status).toBe(200); // success (audited with a commit)
    expect((await post(READER, read("canary-note"))).status).toBe(200); // success
    expect(await (await post(READER, write)).text()).toContain("forbidden");
    expect(await (await post(READER, read("no-such-concept"))).text()).toContain("not_found");
    expect((await post(null, init)).status).toBe(401);
    expect((await post(`${ADMIN}x`, init)).status).toBe(401); // near-miss token
    expect((await post(ADMIN.toLowerCase(), init)).status).toBe(401);
    expect((await post(READER, "{not json")).status).toBe(400);
    expect((await post(READER, init, "/mcp/missing-kb")).status).toBe(404);
    expect((await post(READER, init, "/mcp/notes", { "Content-Type": "text/plain" })).status).toBe(
      415,
    );
    const routedRead = rpc("tools/call", {
      name: "concept_read",
      arguments: { kb: "notes", id: "canary-note" },
    });
    expect((await post(READER, routedRead, "/mcp/routed?kbs=notes")).status).toBe(200);
    expect((await post(READER, routedRead, "/mcp/routed?kbs=nope")).status).toBe(400);
    expect((await post(`${READER}z`, routedRead, "/mcp/routed")).status).toBe(401);
    expect((await send("/health")).status).toBe(200);
    await send("/ready");
    await send("/.well-known/oauth-protected-resource");
    await send("/.well-known/oauth-protected-resource/mcp/notes");
    await send("/mcp/notes", { headers: { Authorization: `Bearer ${ADMIN}` } }); // GET → 405
    await send("/nowhere", { headers: { Authorization: `Bearer ${READER}` } });

    const code = await server.stop();
    expect(code === 0 || code === null).toBe(true);
    const audit = filesUnder(join(sandbox.dir, "audit"));
    expect(audit.length).toBeGreaterThan(0);
    const auditText = audit.map((f) => readFileSync(f, "utf8")).join("\n");
    expect(auditText).toContain("concept_write"); // the audit did record the calls
    assertClean("audit", auditText);
    assertClean("stdout", server.stdout());
    assertClean("stderr", server.stderr());
    assertClean("responses", seen.join("\n"));
    // Everything the run left on disk (KB files, SQLite index, git internals), the KB's full
    // history (git objects are compressed, so read them through git), and the audit CLI's output.
    const left = filesUnder(sandbox.dir);
    expect(left).toContain(join(sandbox.dir, "notes", "data", "canary-note.md"));
    for (const file of left) assertClean(file, readFileSync(file).toString("latin1"));
    const kb = join(sandbox.dir, "notes");
    assertClean("git history", execFileSync("git", ["log", "-p", "--all"], { cwd: kb }).toString());
    const log = join(sandbox.dir, "audit", "audit.log");
    const verify = await runBin(["audit", "verify", "--log", log], { cwd: sandbox.dir });
    expect(verify.code, verify.stderr).toBe(0);
    const exported = await runBin(["audit", "export", "--log", log], { cwd: sandbox.dir });
    expect(exported.code, exported.stderr).toBe(0);
    assertClean("audit CLI", verify.stdout + verify.stderr + exported.stdout + exported.stderr);
  }, 60_000);

  it("a config validation failure names the token by position, never by value", async () => {
    const dir = tempDir("carto-canary-cfg-");
    try {
      const config = join(dir.dir, "cartographer.yaml");
      writeFileSync(
        config,
        [
          "auth:",
          "  tokens:",
          `    - { token: "${ADMIN}", roles: [no-such-role] }`,
          `    - { token: "${READER}", scopes: ["kb:notes:x"] }`,
          `    - "${READER}"`,
        ].join("\n"),
      );
      const bad = await runBin(
        [
          "serve",
          "--config",
          config,
          "--kb",
          join(dir.dir, "kb"),
          "--init",
          "--http",
          "127.0.0.1:0",
        ],
        { cwd: dir.dir, env: cleanEnv(GIT_ENV) },
      );
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/unknown role "no-such-role"/);
      assertClean("config error", bad.stdout + bad.stderr);
      const env = await runBin(
        ["serve", "--kb", join(dir.dir, "kb"), "--init", "--http", "127.0.0.1:0"],
        {
          cwd: dir.dir,
          env: cleanEnv({ ...GIT_ENV, CARTOGRAPHER_TOKENS: `${ADMIN}|kb:notes:zz;${READER}` }),
        },
      );
      expect(env.code).not.toBe(0);
      expect(env.stderr).toMatch(/CARTOGRAPHER_TOKENS\S* entry 1, scope 1/);
      assertClean("env error", env.stdout + env.stderr);
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});
