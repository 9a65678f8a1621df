/**
 * A Go v0.5 cartographer.yaml loads here (docs/migrating-from-go.md "Configuration"). Every Go key
 * is implemented or accepted with ONE warning naming it; a misspelled key stays an error and names
 * the nearest known key; `--kb a,b` is two KBs.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAuthConfig } from "../../../src/auth/config.js";
import { GO_KEYS, goKeyPath } from "../../../src/cli/config/go-keys.js";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { fileConfigSchema, keysAt } from "../../../src/cli/config/schema.js";
import { editDistance, nearestKey } from "../../../src/cli/config/suggest.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-goconfig-");

function fakeKb(root: string): string {
  mkdirSync(join(root, "data"), { recursive: true });
  writeFileSync(join(root, "data", "index.md"), "---\ntype: Index\n---\n");
  return root;
}

/** Go's config.example.yaml with every commented key switched on (values are placeholders). */
const GO_CONFIG = `
http: "127.0.0.1:39273"
init: false
auth:
  mode: "on"
  tokens:
    - "admin-token-no-scopes-0123456789"
    - token: "reader-token-0123456789abcdef"
      id: reader
      scopes: ["kb:wiki-kb:r"]
      roles: [ops]
  roles:
    - name: ops
      rules:
        - { kb: wiki-kb, access: r, maps: [infra], journals: [], types: [runbook] }
data: data
kbs:
  - remote: https://gitea.example.com/user/wiki-kb.git
    name: wiki-kb
  - path: data/kb-locale
    artifact_signing_seed: "${"0".repeat(64)}"
    mcp_allowlist:
      - { name: wiki-tools, transport: http, target: https://tools.example.com/mcp }
    ssh_key: /etc/kb-ssh/id_ed25519_locale
    known_hosts: /etc/kb-ssh/known_hosts
    author_name: cartographer-locale
    author_email: locale@example.com
    committer_name: c
    committer_email: c@example.com
    sops_age_key_file: /etc/kb-sops/locale.age
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
  age_key_file: /etc/kb-sops/keys.age
  age_key_dir: /etc/kb-sops-keys
search:
  ollama_url: "http://localhost:11434"
  ollama_model: nomic-embed-text
audit:
  log: "audit.log"
  key_seed: ""
  mode: best_effort
  max_segment_bytes: 1048576
  archive_dir: audit-archive
  retention_days: 30
tools:
  profile: agent
`;

describe("a Go v0.5 config", () => {
  it("loads with every Go key set: one 'not supported here' warning per ignored key, never fatal", () => {
    const cwd = sandbox();
    fakeKb(join(cwd, "data", "kb-locale"));
    fakeKb(join(cwd, "data", "wiki-kb")); // where Go cloned the remote: found through `data`
    writeFileSync(join(cwd, "c.yaml"), GO_CONFIG);
    const c = resolveServerConfig({ config: "c.yaml" }, {}, cwd);

    const ignored = GO_KEYS.filter((k) => k.status === "ignored");
    const notSupported = c.warnings.filter((w) => w.startsWith("not supported here: "));
    expect(notSupported).toHaveLength(ignored.length);
    for (const k of ignored) {
      const mine = notSupported.filter((w) => w.startsWith(`not supported here: ${goKeyPath(k)}`));
      expect(mine, goKeyPath(k)).toHaveLength(1);
      expect(mine[0]).toMatch(/; see docs\/migrating-from-go\.md$/);
    }
    // Remote sync is implemented (docs/sync.md): the remote entry is the clone under `data`.
    expect(notSupported.join("\n")).not.toMatch(/kbs\[\]\.remote|git\.sync|token_dir/);
    expect(c.kbs.find((k) => k.name === "wiki-kb")?.remote).toBeDefined();
    // What is implemented took effect.
    // Config order: the remote entry (kbs.0) is mounted first now that it is implemented.
    expect(c.kbs.map((k) => [k.name, k.allowArtifactWrite])).toEqual([
      ["wiki-kb", false],
      ["kb-locale", true],
    ]);
    expect(c.kbs[0]?.gitAuthor).toEqual({ name: "cartographer", email: "cartographer@localhost" });
    expect(c.auth.section).toMatchObject({ mode: true });
    expect(parseAuthConfig(c.auth.section).tokens).toHaveLength(2);
    expect(c.audit).toMatchObject({
      mode: "best_effort",
      maxSegmentBytes: 1048576,
      retentionDays: 30,
    });
    expect(c.initMissing).toBe(false);
  });

  it("says nothing about Go keys left at their zero value", () => {
    const cwd = sandbox();
    writeFileSync(
      join(cwd, "c.yaml"),
      'search:\n  ollama_url: ""\ngit:\n  sync: false\nsops: {}\nhttp: ":0"\n',
    );
    const c = resolveServerConfig({ config: "c.yaml" }, {}, cwd);
    expect(c.warnings.filter((w) => w.startsWith("not supported here"))).toEqual([]);
  });

  it("warns once for a Go-only environment variable", () => {
    const cwd = sandbox();
    const c = resolveServerConfig(
      { http: ":0" },
      {
        CARTOGRAPHER_GIT_SYNC: "true",
        CARTOGRAPHER_GIT_PROFILE: "server",
      },
      cwd,
    );
    // CARTOGRAPHER_GIT_SYNC is implemented now (docs/sync.md): no warning for it.
    expect(c.warnings.filter((w) => w.startsWith("not supported here"))).toEqual([
      "not supported here: CARTOGRAPHER_GIT_PROFILE; see docs/migrating-from-go.md",
    ]);
  });

  it("every key of the Go table is accepted by the schema in its block", () => {
    for (const k of GO_KEYS) {
      const path = k.section === "" ? [] : k.section === "kbs[]" ? ["kbs", 0] : [k.section];
      if (k.section === "auth") continue; // typed by src/auth/config.ts
      expect(keysAt(fileConfigSchema, path), goKeyPath(k)).toContain(k.name);
    }
  });

  it("a misspelled key stays an error and names the nearest known key", () => {
    const cwd = sandbox();
    const load = (yaml: string) => {
      writeFileSync(join(cwd, "c.yaml"), yaml);
      return () => resolveServerConfig({ config: "c.yaml" }, {}, cwd);
    };
    expect(load("htpp: 1\n")).toThrow("unknown key `htpp`; did you mean `http`?");
    expect(load("git:\n  autocomit: true\n")).toThrow(
      "git: unknown key `autocomit`; did you mean `autocommit`?",
    );
    expect(load("kbs:\n  - path: x\n    nmae: y\n")).toThrow(
      "kbs.0: unknown key `nmae`; did you mean `name`?",
    );
    expect(load("search:\n  olama_url: x\n")).toThrow("did you mean `ollama_url`?");
    expect(load("zzzzzz: 1\n")).toThrow(/unknown key `zzzzzz`(?!;)/);
  });

  it("git.author_name without author_email is an error naming both", () => {
    const cwd = sandbox();
    writeFileSync(join(cwd, "c.yaml"), "git:\n  author_name: a\nhttp: ':0'\n");
    expect(() => resolveServerConfig({ config: "c.yaml" }, {}, cwd)).toThrow(
      /git\.author_name and git\.author_email/,
    );
  });

  it("auth.mode keeps refusing a value that is not a mode", () => {
    const cwd = sandbox();
    writeFileSync(join(cwd, "c.yaml"), "auth:\n  mode: sometimes\n");
    const c = resolveServerConfig({ config: "c.yaml" }, {}, cwd);
    expect(c.auth.section).toEqual({ mode: "sometimes" }); // src/auth rejects it, naming auth.mode
  });
});

describe("--kb comma form (as Go)", () => {
  it("--kb a,b mounts two KBs, like CARTOGRAPHER_KB; repeated flags still add up", () => {
    const cwd = sandbox();
    for (const n of ["a", "b", "c"]) fakeKb(join(cwd, n));
    const c = resolveServerConfig({ kb: ["a,b", " c "] }, {}, cwd);
    expect(c.kbs.map((k) => k.root)).toEqual(["a", "b", "c"].map((n) => join(cwd, n)));
    expect(c.kbs.some((k) => k.root.includes(","))).toBe(false);
  });
});

describe("nearest-key suggestion", () => {
  it("counts a swap of two neighbours as one edit", () => {
    expect(editDistance("htpp", "http")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(nearestKey("htpp", ["data", "http", "kbs"])).toBe("http");
    expect(nearestKey("qqqq", ["data", "http", "kbs"])).toBeUndefined();
  });
});
