/**
 * A Go v0.5 deployment carried over unchanged (docs/migrating-from-go.md). The built binary serves
 * a copy of test/fixtures/go-kb-homelab-lite (a KB the Go implementation wrote: legacy
 * `_archive.md`, expanded concept, frontmatter starting with a blank line) plus an empty folder
 * that Go's `init: true` turns into a KB, from a Go-style cartographer.yaml in which EVERY Go v0.5
 * key is set (config.example.yaml with all its commented keys switched on). The Go project's
 * operator scenarios are then driven against a real HTTP server on 127.0.0.1 with the SDK Client,
 * translated from curl + `bin/cartographer` to this CLI:
 *
 * Go test/e2e/scenarios/10_scoped_tokens.sh (per-KB r/rw scopes, D45/D118)
 *   1. a token without scopes (admin) reads and writes every KB;
 *   2. `kb:A:r` reads A (tools/call and tools/list) and gets `forbidden` on a write;
 *   3. `kb:A:rw` reads and writes A;
 *   4. a token scoped to A gets `forbidden` on B. Here initialize itself is refused on an
 *      endpoint where the principal can read no KB (design §7), so those calls are raw
 *      JSON-RPC POSTs, as Go's curl ones were.
 *   Translation: Go's `/mcp` + KB header → our `/mcp?kb=<name>`; map_create takes `kind`.
 *
 * Go test/e2e/scenarios/14_rbac_visibility.sh (retrieval visibility, D118)
 *   1. a token scoped to A finds its concepts with search / concept_list / atlas_overview and
 *      never B's; the same tools on B are `forbidden`;
 *   2. a concept outside the perimeter reads exactly `not found`, without its title;
 *   3. a write outside the perimeter is refused and leaves the concept unchanged;
 *   4. the admin token keeps full visibility.
 *   Added (the YAML wiring Go lacked): a D118 role `{maps: [infra], types: [service]}` sees
 *   the fixture's `service` concept but not its `note`, and no services/ descriptor.
 *
 * Go test/e2e/scenarios/15_operational_audit.sh (compliance audit, D119)
 *   1. every audited tools/call leaves an attempt + completion pair naming tool, KB, transport;
 *   2. `cartographer audit verify --log` accepts the chain;
 *   3. `cartographer audit export --log --out` writes the events;
 *   4. one rewritten outcome makes verify exit non-zero and export refuse, writing nothing.
 *
 * Also checked: the config starts the server (each Go key not supported here is one warning,
 * never fatal; src/cli/config/go-keys.ts says which), the `remote`-only kbs[] entry (a local
 * bare repository) is skipped or cloned as that table says, the services/ descriptor and the secret tools answer
 * (sops_age_key_file set; `not_configured` when the sops binary is absent), and no token value
 * reaches the audit log or the server's output.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GO_KEYS, goKeyPath } from "../../src/cli/config/go-keys.js";
import { GO_FIXTURE_KB } from "../support/fixture.js";
import { cleanEnv, GIT_ENV, type RunningServer, runBin, startServer, tempDir } from "./helpers.js";

const FIXTURE = GO_FIXTURE_KB;

const TOKENS = {
  admin: "go-admin-token-0123456789abcdef",
  rw: "go-rw-token-0123456789abcdef",
  r: "go-r-token-0123456789abcdef",
  role: "go-role-token-0123456789abcdef",
  other: "go-other-token-0123456789abcdef",
};
const A = "homelab"; // the Go fixture
const B = "lab-notes"; // created by init: true from an empty folder

/** Go's config.example.yaml with every key set (placeholders where we only warn). */
function goConfig(keyFile: string, remote: string): string {
  return `
http: ":0"
init: true
auth:
  mode: "on"
  tokens:
    - "${TOKENS.admin}"
    - token: "${TOKENS.rw}"
      id: writer
      scopes: ["kb:${A}:rw"]
    - token: "${TOKENS.r}"
      id: reader
      scopes: ["kb:${A}:r"]
    - token: "${TOKENS.role}"
      id: infra-services
      roles: [infra-services]
    - token: "${TOKENS.other}"
      id: other
      scopes: ["kb:${B}:rw"]
  roles:
    - name: infra-services
      rules:
        - { kb: ${A}, access: r, maps: [infra], journals: [], types: [service] }
data: data
kbs:
  - remote: ${remote}
    name: wiki-kb
  - path: data/${A}
    name: ${A}
    artifact_signing_seed: "${"0".repeat(64)}"
    mcp_allowlist:
      - { name: wiki-tools, transport: http, target: https://tools.example.com/mcp }
    ssh_key: /etc/kb-ssh/id_ed25519_locale
    known_hosts: /etc/kb-ssh/known_hosts
    author_name: cartographer-locale
    author_email: locale@example.com
    committer_name: cartographer-locale
    committer_email: locale@example.com
    sops_age_key_file: ${keyFile}
    allow_artifact_write: true
    tool_prefix: "locale"
    git_profile: server
    git_base_branch: main
    git_working_branch: cartographer/locale
    git_forge: github
    github_owner: example-org
    github_repository: wiki
    github_api_url: https://api.github.com
    github_token_env: CARTOGRAPHER_GITHUB_TOKEN
mcp:
  tool_prefix_mode: "off"
git:
  autocommit: true
  sync: true
  ssh_key: /etc/kb-ssh/id_ed25519
  known_hosts: /etc/kb-ssh/known_hosts
  author_name: cartographer
  author_email: cartographer@localhost
  committer_name: cartographer
  committer_email: cartographer@localhost
  token_dir: /etc/kb-git-tokens
  in_window: 30s
  out_debounce: 3s
  profile: server
  base_branch: main
  working_branch: cartographer/wiki-kb
  forge: github
  github_owner: example-org
  github_repository: wiki
  github_api_url: https://api.github.com
  github_token_env: CARTOGRAPHER_GITHUB_TOKEN
sops:
  age_key_file: keys/global.age
  age_key_dir: keys
search:
  ollama_url: "http://localhost:11434"
  ollama_model: nomic-embed-text
audit:
  log: audit/audit.jsonl
  key_seed: ""
  mode: best_effort
  max_segment_bytes: 1048576
  archive_dir: audit/archive
  retention_days: 30
tools:
  profile: agent
`;
}

const SERVICE =
  "---\ntype: Service\ntitle: Pi-hole\nstatus: active\nsecret_refs: [ADMIN_PW=secrets/pihole.sops.yaml#/admin/password]\n---\n\nDNS filter.\n";

let dir: string;
let cleanupDir: () => void;
let server: RunningServer;
const clients: Client[] = [];

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV } }).toString();
}

async function client(token: string, kb: string): Promise<Client> {
  const c = new Client({ name: "go-migration-e2e", version: "1.0.0" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?kb=${kb}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(c);
  return c;
}

function textOf(result: unknown): string {
  return ((result as CallToolResult).content?.[0] as { text?: string } | undefined)?.text ?? "";
}

async function call(c: Client, name: string, args: Record<string, unknown> = {}) {
  const res = (await c.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: res.isError === true, text: textOf(res) };
}

/** A tools/call without initialize (Go's curl calls): the tool text, or the JSON-RPC error. */
async function rawCall(token: string, kb: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${server.url}/mcp?kb=${kb}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const body = (await res.json()) as { result?: CallToolResult; error?: { message: string } };
  return { status: res.status, text: body.result ? textOf(body.result) : body.error?.message };
}

beforeAll(async () => {
  ({ dir, cleanup: cleanupDir } = tempDir("carto-go-migration-"));
  const kbA = join(dir, "data", A);
  cpSync(FIXTURE, kbA, { recursive: true });
  execFileSync("chmod", ["-R", "u+w", kbA]);
  mkdirSync(join(kbA, "services"));
  writeFileSync(join(kbA, "services", "pihole.md"), SERVICE);
  git(kbA, ["init", "-q", "-b", "main"]);
  git(kbA, ["add", "-A"]);
  git(kbA, ["commit", "-q", "-m", "Go KB"]);
  mkdirSync(join(dir, "data", B)); // empty: init: true makes it a KB
  // Go's remote-only entry, pointing at a local bare repository so that it needs no network
  // whether this server ignores `remote` or clones it.
  const src = join(dir, "remote-src");
  mkdirSync(join(src, "data"), { recursive: true });
  writeFileSync(join(src, "data", "index.md"), "---\ntype: Index\ntitle: Wiki\n---\n# Wiki\n");
  git(src, ["init", "-q", "-b", "main"]);
  git(src, ["add", "-A"]);
  git(src, ["commit", "-q", "-m", "wiki"]);
  git(dir, ["clone", "-q", "--bare", src, join(dir, "remotes", "wiki-kb.git")]);
  mkdirSync(join(dir, "keys"));
  const keyFile = join(dir, "keys", "homelab-own.age");
  writeFileSync(keyFile, "# age key placeholder: the e2e does not decrypt\n");
  chmodSync(keyFile, 0o600);
  writeFileSync(
    join(dir, "cartographer.yaml"),
    goConfig(keyFile, `file://${join(dir, "remotes", "wiki-kb.git")}`),
  );
  server = await startServer(["--config", "cartographer.yaml"], {
    cwd: dir,
    env: cleanEnv(GIT_ENV),
  });
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await server?.stop();
  cleanupDir?.();
});

describe("a Go v0.5 config and KB, served by the built binary", () => {
  it("starts: each Go key not supported here is one warning, init made B, remote per its status", async () => {
    const err = server.stderr();
    // The config sets every Go key, so every `ignored` one of the table warns exactly once.
    for (const k of GO_KEYS.filter((g) => g.status === "ignored")) {
      const lines = err
        .split("\n")
        .filter((l) => l.includes(`not supported here: ${goKeyPath(k)}`));
      expect(lines, goKeyPath(k)).toHaveLength(1);
    }
    expect(err).not.toContain("not supported here: kbs[].sops_age_key_file");
    expect(err).not.toContain("not supported here: sops.");
    const health = (await (await fetch(`${server.url}/health`)).json()) as {
      kbs: { name: string; status: string }[];
    };
    const cloned = GO_KEYS.some((k) => goKeyPath(k) === "kbs[].remote" && k.status !== "ignored");
    expect(health.kbs.map((k) => [k.name, k.status]).sort()).toEqual(
      [[A, "ok"], [B, "ok"], ...(cloned ? [["wiki-kb", "ok"]] : [])].sort(),
    );
  });
});

describe("Go scenario 10: scoped tokens", () => {
  it("admin (no scopes) reads and writes every KB", async () => {
    const a = await client(TOKENS.admin, A);
    expect((await call(a, "atlas_overview")).isError).toBe(false);
    expect(await call(a, "map_create", { name: "scope-admin", kind: "map" })).toMatchObject({
      isError: false,
    });
    const b = await client(TOKENS.admin, B);
    expect((await call(b, "atlas_overview")).isError).toBe(false);
  });

  it("kb:A:r reads A (tools/call and tools/list) and is forbidden to write", async () => {
    const r = await client(TOKENS.r, A);
    expect((await call(r, "atlas_overview")).isError).toBe(false);
    expect((await r.listTools()).tools.length).toBeGreaterThan(0);
    expect(await call(r, "map_create", { name: "scope-rtok", kind: "map" })).toEqual({
      isError: true,
      text: "forbidden",
    });
  });

  it("kb:A:rw reads and writes A", async () => {
    const rw = await client(TOKENS.rw, A);
    expect((await call(rw, "atlas_overview")).isError).toBe(false);
    expect((await call(rw, "map_create", { name: "scope-rwtok", kind: "map" })).isError).toBe(
      false,
    );
    expect(git(join(dir, "data", A), ["log", "-1", "--format=%s"]).trim()).toBe(
      "map_create: scope-rwtok",
    );
  });

  it("a token scoped to A is forbidden on B", async () => {
    for (const token of [TOKENS.rw, TOKENS.r]) {
      expect(await rawCall(token, B, "atlas_overview", {})).toEqual({
        status: 200,
        text: "forbidden",
      });
    }
  });
});

describe("Go scenario 14: RBAC visibility", () => {
  beforeAll(async () => {
    const admin = await client(TOKENS.admin, B);
    const w = await call(admin, "concept_write", {
      id: "notes/hello-b",
      frontmatter: { type: "Note", title: "Hello B" },
      body: "# Hello B\nbody text",
    });
    expect(w.isError).toBe(false);
  });

  it("a token scoped to A sees A's concepts through search, concept_list, atlas_overview", async () => {
    const r = await client(TOKENS.r, A);
    const found = await call(r, "search", { query: "gateway" });
    expect(found.text).toContain("infra/rete/gateway");
    expect(found.text).not.toContain("hello-b");
    expect((await call(r, "concept_list")).text).toContain("infra/rete/dns");
    expect((await call(r, "atlas_overview")).isError).toBe(false);
    expect((await call(r, "service_list")).text).toContain("services/pihole");
  });

  it("the same collection tools on B are forbidden", async () => {
    for (const [tool, args] of [
      ["search", { query: "Hello" }],
      ["concept_list", {}],
      ["atlas_overview", {}],
    ] as const) {
      expect(await rawCall(TOKENS.r, B, tool, args), tool).toEqual({
        status: 200,
        text: "forbidden",
      });
    }
  });

  it("a concept outside the perimeter reads exactly `not found`, without its title", async () => {
    const hidden = await rawCall(TOKENS.r, B, "concept_read", { id: "notes/hello-b" });
    const missing = await rawCall(TOKENS.r, B, "concept_read", { id: "notes/none" });
    expect(hidden).toEqual({ status: 200, text: "not found" });
    expect(missing).toEqual(hidden);
  });

  it("a write outside the perimeter is refused and changes nothing", async () => {
    const denied = await rawCall(TOKENS.r, B, "concept_write", {
      id: "notes/hello-b",
      frontmatter: { type: "Note", title: "Hacked" },
      body: "# Hacked",
    });
    expect(denied).toEqual({ status: 200, text: "not found" });
    const admin = await client(TOKENS.admin, B);
    const read = await call(admin, "concept_read", { id: "notes/hello-b" });
    expect(read.text).toContain("Hello B");
    expect(read.text).not.toContain("Hacked");
  });

  it("a D118 role (map infra, type service) sees the gateway, not the note nor services/", async () => {
    const role = await client(TOKENS.role, A);
    const list = await call(role, "concept_list");
    expect(list.text).toContain("infra/rete/gateway");
    expect(list.text).not.toContain("infra/rete/dns");
    expect(await call(role, "concept_read", { id: "infra/rete/dns" })).toEqual({
      isError: true,
      text: "not found",
    });
    expect(JSON.parse((await call(role, "service_list")).text)).toMatchObject({ total: 0 });
  });

  it("the admin token keeps full visibility on both KBs", async () => {
    const a = await client(TOKENS.admin, A);
    const b = await client(TOKENS.admin, B);
    expect((await call(a, "concept_read", { id: "infra/rete/dns" })).isError).toBe(false);
    expect((await call(b, "search", { query: "Hello" })).text).toContain("notes/hello-b");
  });

  it("service descriptors and the secret tools (sops_age_key_file from the Go config)", async () => {
    const admin = await client(TOKENS.admin, A);
    const svc = JSON.parse(
      (await call(admin, "service_get", { service_id: "services/pihole" })).text,
    );
    expect(svc).toMatchObject({ id: "services/pihole", title: "Pi-hole" });
    const r = await client(TOKENS.r, A);
    expect(await call(r, "secret_resolve", { id: "services/pihole" })).toEqual({
      isError: true,
      text: "forbidden",
    });
    const resolved = await call(admin, "secret_resolve", { id: "services/pihole" });
    expect(resolved.isError).toBe(true);
    // Without sops on PATH: not_configured naming the binary; with it: the file is missing.
    expect(resolved.text).toMatch(
      /^(not_configured: the sops binary|not_found: no encrypted file)/,
    );
  });
});

describe("Go scenario 15: operational audit", () => {
  const log = () => join(dir, "audit", "audit.jsonl");

  beforeAll(async () => {
    await server.stop(); // closes and flushes the log before inspection, as Go's scenario does
  });

  it("every call left an attempt + completion pair naming tool, KB and transport", () => {
    const entries = readFileSync(log(), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const mapCreate = entries.filter((e) => e.tool === "map_create" && e.kb === A);
    expect(mapCreate.map((e) => e.phase)).toContain("attempt");
    expect(mapCreate.map((e) => e.phase)).toContain("completion");
    expect(entries.some((e) => e.tool === "atlas_overview" && e.outcome === "success")).toBe(true);
    expect(entries.every((e) => e.transport === "http")).toBe(true);
    expect(entries.some((e) => e.outcome === "forbidden")).toBe(true);
  });

  it("no token value reaches the audit log or the server's output", () => {
    const everything = readFileSync(log(), "utf8") + server.stdout() + server.stderr();
    for (const token of Object.values(TOKENS)) expect(everything).not.toContain(token);
  });

  it("audit verify accepts the chain; audit export writes the events", async () => {
    const verify = await runBin(["audit", "verify", "--log", log()], { cwd: dir });
    expect(verify.code, verify.stderr).toBe(0);
    const out = join(dir, "export.json");
    const exported = await runBin(["audit", "export", "--log", log(), "--out", out], { cwd: dir });
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("map_create");
  });

  it("one rewritten outcome: verify exits non-zero, export refuses and writes nothing", async () => {
    const text = readFileSync(log(), "utf8");
    expect(text).toContain('"outcome":"success"');
    writeFileSync(log(), text.replace('"outcome":"success"', '"outcome":"failure"'));
    const verify = await runBin(["audit", "verify", "--log", log()], { cwd: dir });
    expect(verify.code).not.toBe(0);
    const out = join(dir, "export-tampered.json");
    const exported = await runBin(["audit", "export", "--log", log(), "--out", out], { cwd: dir });
    expect(exported.code).not.toBe(0);
    expect(existsSync(out)).toBe(false);
  });
});
