/**
 * Go's documented config schema (its docs/deployment.md block, paths made local) loads here:
 * every Go zero value (`""`, `0` where Go reads it as default, `null`) means "unset", Go's docs
 * spelling `git.auto_commit` is `git.autocommit` with one warning, and a real typo is still an
 * error naming the nearest key.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dropGoZeroValues } from "../../../src/cli/config/go-zero-values.js";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { DEFAULT_IN_WINDOW_MS } from "../../../src/kb/core/types.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-gozero-");

function fakeKb(root: string): void {
  mkdirSync(join(root, "data"), { recursive: true });
  writeFileSync(join(root, "data", "index.md"), "---\ntype: Index\n---\n");
}

/** The keys and values of Go's documented schema block, its absolute paths made relative. */
const GO_SCHEMA_BLOCK = `
http: ":39273"
init: true
auth:
  mode: "on"
  tokens: ["admin-token-0123456789abcdef"]
  roles: []
data: data
kbs:
  - remote: ssh://git@host:2222/user/wiki-kb.git
  - path: data/kb-locale
  - remote: https://gitea.example.com/team/shared-kb.git
    name: shared-kb
    author_name: "Team Bot"
    author_email: team-bot@example.com
    committer_name: "Cartographer CI"
    committer_email: cartographer-ci@example.com
    allow_artifact_write: true
    tool_prefix: "team"
mcp:
  tool_prefix_mode: "off"
git:
  autocommit: true
  sync: true
  ssh_key: kb-ssh/id_ed25519
  known_hosts: kb-ssh/known_hosts
  author_name: "Team Bot"
  author_email: team-bot@example.com
  token_dir: kb-git-tokens
  in_window: 30s
  out_debounce: 3s
search:
  ollama_url: ""
  ollama_model: nomic-embed-text
audit:
  log: ""
  key_seed: ""
  mode: best_effort
  max_segment_bytes: 0
  archive_dir: ""
  retention_days: 0
sops:
  age_key_dir: kb-sops-keys
tools:
  profile: agent
`;

/** Every Go key this server implements, at Go's zero value. */
const ALL_ZERO = `
http: ""
data: ""
auth:
  mode: ""
kbs:
  - path: kb
    name: ""
    remote: ""
    ssh_key: ""
    known_hosts: ""
    author_name: ""
    author_email: ""
    committer_name: ""
    committer_email: ""
    sops_age_key_file: ""
    artifact_signing_seed: ""
    tool_prefix: ""
    git_profile: ""
git:
  ssh_key: ""
  known_hosts: ""
  author_name: ""
  author_email: ""
  committer_name: ""
  committer_email: ""
  token_dir: ""
  in_window: ""
  out_debounce: ""
  profile: ""
search:
  ollama_url: ""
  ollama_model: ""
audit:
  log: audit.jsonl
  key_seed: ""
  mode: ""
  max_segment_bytes: 0
  archive_dir: ""
  retention_days: 0
sops:
  age_key_file: ""
  age_key_dir: ""
tools:
  profile: ""
mcp:
  tool_prefix_mode: ""
`;

function load(cwd: string, yaml: string) {
  writeFileSync(join(cwd, "c.yaml"), yaml);
  return resolveServerConfig({ config: "c.yaml" }, {}, cwd);
}

describe("Go's documented schema block", () => {
  it("loads unchanged (paths made local): 0 = no rotation and keep forever, '' = unset", () => {
    const cwd = sandbox();
    fakeKb(join(cwd, "data", "kb-locale"));
    const c = load(cwd, GO_SCHEMA_BLOCK);
    expect(c.http).toEqual({ host: "127.0.0.1", port: 39273 });
    expect(c.kbs.map((k) => k.name)).toEqual(["wiki-kb", "kb-locale", "shared-kb"]);
    expect(c.kbs[2]).toMatchObject({
      allowArtifactWrite: true,
      gitAuthor: { name: "Team Bot", email: "team-bot@example.com" },
      committer: { name: "Cartographer CI", email: "cartographer-ci@example.com" },
    });
    expect(c.audit).toBeNull(); // audit.log: "" = no audit log, as in Go
    expect(c.embeddings).toBeNull(); // ollama_url: "" = keyword search only
    expect(c.toolsProfile).toBe("agent");
    expect(c.sync.inWindowMs).toBe(30_000);
  });

  it("reads audit.max_segment_bytes: 0 and retention_days: 0 as unset, other numbers as before", () => {
    const cwd = sandbox();
    const zero = load(
      cwd,
      "http: ':0'\naudit:\n  log: a.jsonl\n  max_segment_bytes: 0\n  retention_days: 0\n",
    );
    expect(zero.audit).toMatchObject({ log: join(cwd, "a.jsonl"), mode: "best_effort" });
    expect(zero.audit?.maxSegmentBytes).toBeUndefined();
    expect(zero.audit?.retentionDays).toBeUndefined();
    const set = load(
      cwd,
      "http: ':0'\naudit:\n  log: a.jsonl\n  max_segment_bytes: 4096\n  retention_days: 7\n",
    );
    expect(set.audit).toMatchObject({ maxSegmentBytes: 4096, retentionDays: 7 });
    expect(() => load(cwd, "audit:\n  log: a.jsonl\n  retention_days: -1\n")).toThrow(
      /audit\.retention_days/,
    );
  });

  it("treats every Go key at its zero value as unset: defaults apply, nothing is warned", () => {
    const cwd = sandbox();
    fakeKb(join(cwd, "kb"));
    const c = load(cwd, ALL_ZERO);
    expect(c.transport).toBe("http");
    expect(c.http).toEqual({ host: "127.0.0.1", port: 39273 });
    expect(c.dataDir).toBeNull();
    expect(c.kbs).toHaveLength(1);
    expect(c.kbs[0]).toMatchObject({ name: "kb", root: join(cwd, "kb") });
    expect(c.kbs[0]?.remote).toBeUndefined();
    expect(c.kbs[0]?.sshKey).toBeUndefined();
    expect(c.kbs[0]?.gitAuthor).toBeUndefined();
    expect(c.auth.section).toEqual({});
    expect(c.toolsProfile).toBe("agent");
    expect(c.audit).toMatchObject({ mode: "best_effort" });
    expect(c.audit?.keySeedHex).toBeUndefined();
    expect(c.audit?.archiveDir).toBeUndefined();
    expect(c.sync.inWindowMs).toBe(DEFAULT_IN_WINDOW_MS);
    expect(c.sync.tokenDir).toBeUndefined();
    expect(c.sync.sshKey).toBeUndefined();
    expect(c.embeddings).toBeNull();
    expect(c.warnings).toEqual([]);
  });

  it("keeps git.in_window: 0 (sync before every call), which is a value in Go too", () => {
    const c = load(sandbox(), "http: ':0'\ngit:\n  in_window: 0\n");
    expect(c.sync.inWindowMs).toBe(0);
  });

  it("reads an empty block (`sops:`) as absent", () => {
    const c = load(sandbox(), "http: ':0'\nsops:\ngit:\naudit:\n");
    expect(c.audit).toBeNull();
  });

  it("does not modify its input", () => {
    const raw = { audit: { retention_days: 0 }, kbs: [{ path: "x", name: "" }] };
    dropGoZeroValues(raw);
    expect(raw).toEqual({ audit: { retention_days: 0 }, kbs: [{ path: "x", name: "" }] });
  });
});

describe("git.auto_commit (Go's docs spelling)", () => {
  it("is read as git.autocommit, with one warning", () => {
    const c = load(sandbox(), "http: ':0'\ngit:\n  auto_commit: false\n");
    expect(c.autocommit).toBe(false);
    expect(c.warnings.filter((w) => w.includes("auto_commit"))).toEqual([
      "config key git.auto_commit is read as git.autocommit (Go's documentation spelling); write git.autocommit",
    ]);
  });

  it("together with git.autocommit is an error naming both", () => {
    expect(() => load(sandbox(), "git:\n  auto_commit: false\n  autocommit: true\n")).toThrow(
      /git\.auto_commit and git\.autocommit are the same setting/,
    );
  });
});

describe("real typos", () => {
  it("stay errors naming the nearest key, zero value or not", () => {
    const cwd = sandbox();
    expect(() => load(cwd, "audit:\n  retension_days: 0\n")).toThrow(
      "audit: unknown key `retension_days`; did you mean `retention_days`?",
    );
    expect(() => load(cwd, 'git:\n  ssh_kye: ""\n')).toThrow(
      "git: unknown key `ssh_kye`; did you mean `ssh_key`?",
    );
    expect(() => load(cwd, 'kbs:\n  - path: x\n    nmae: ""\n')).toThrow(
      "kbs.0: unknown key `nmae`; did you mean `name`?",
    );
  });
});
