import { describe, expect, it } from "vitest";
import { isProviderId, parseClientConfig } from "../../src/client/config.js";
import { convertGoClientConfig, isGoClientConfig } from "../../src/client/go-config.js";

const HASH = "a".repeat(64);

const GO_YAML = {
  server_url: "http://127.0.0.1:39273/mcp",
  server_name: "cartographer",
  auth: true,
  token_env: "CARTOGRAPHER_TOKENS",
  agents: ["claude", "opencode", "gemini"],
  kbs: ["notes", "work"],
  trust: true,
  search_roots: ["~/src"],
  paths: { assets: "~/assets" },
  signing_keys: { notes: ["b".repeat(64)] },
  mcp_approvals: {
    notes: {
      web: { content_hash: HASH, approved_at: "2026-01-01T00:00:00Z" },
      bad: { approved_at: "2026-01-01T00:00:00Z" },
    },
  },
  my_own_key: 1,
};

describe("the Go client's .cartographer.yaml", () => {
  it("is told apart from ours", () => {
    expect(isGoClientConfig(GO_YAML)).toBe(true);
    expect(isGoClientConfig({ agents: [] })).toBe(true);
    expect(isGoClientConfig({ server_url: "x", trust: false })).toBe(true);
    expect(isGoClientConfig({ providers: [{ name: "claude" }], trust: ["notes"] })).toBe(false);
    expect(isGoClientConfig({ server_url: "x" })).toBe(false);
    expect(isGoClientConfig(null)).toBe(false);
  });

  it("converts to a yaml this client loads: providers bound to Go's kbs, approvals kept, consent not", () => {
    const { value, notes } = convertGoClientConfig(GO_YAML, isProviderId);
    const config = parseClientConfig(value, "test.yaml");
    expect(config).toMatchObject({
      server_url: "http://127.0.0.1:39273/mcp",
      server_name: "cartographer",
      token_env: "CARTOGRAPHER_TOKENS",
      providers: [
        { name: "claude", kbs: ["notes", "work"] },
        { name: "opencode", kbs: ["notes", "work"] },
      ],
      search_roots: ["~/src"],
      paths: { assets: "~/assets" },
      signing_keys: { notes: ["b".repeat(64)] },
      approvals: [{ kb: "notes", name: "web", content_hash: HASH }],
    });
    expect(config.trust).toBeUndefined();
    expect(value.my_own_key).toBe(1);
    for (const gone of ["agents", "kbs", "auth", "mcp_approvals"])
      expect(value).not.toHaveProperty(gone);
    expect(notes).toEqual([
      'agents: "gemini" is not a provider here; left out',
      expect.stringContaining(
        "trust: Go's consent to every KB's unsigned artifacts is not carried over",
      ),
      "mcp_approvals.notes.bad: no usable content_hash; approve it again",
    ]);
  });

  it("auth: false means no Authorization header: token_env is dropped; no kbs binds all", () => {
    const { value, notes } = convertGoClientConfig(
      { agents: ["codex"], auth: false, token_env: "T", trust: false },
      isProviderId,
    );
    expect(parseClientConfig(value, "t.yaml")).toMatchObject({ providers: [{ name: "codex" }] });
    expect(value).not.toHaveProperty("token_env");
    expect(notes).toEqual(["auth: false → token_env removed (no Authorization header, as before)"]);
  });
});
