/**
 * A Go KB's MCP descriptors (`mcp/<name>.json`, Go's mcpspec.go rule: every header and env value
 * references at least one `${VAR}`, literal text around it allowed; an http descriptor may carry
 * `env`, validated but never emitted; the other transport's fields may be present empty) reach
 * every provider in its own reference syntax, or are noted where a tool cannot reference them.
 * Every written file is parsed back.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { antigravity as antigravityTarget } from "../../../../src/client/provision/targets/antigravity.js";
import { claude as claudeTarget } from "../../../../src/client/provision/targets/claude.js";
import { codex as codexTarget } from "../../../../src/client/provision/targets/codex.js";
import { kiro as kiroTarget } from "../../../../src/client/provision/targets/kiro.js";
import { opencode as opencodeTarget } from "../../../../src/client/provision/targets/opencode.js";
import { useTempDirs } from "../../../support/temp-dir.js";
import { applyResult } from "./apply.js";
import { artifact, context } from "./artifacts.js";

const sandbox = useTempDirs("carto-tgt-gomcp-");
const v = (name: string) => `\${${name}}`;

// http: Go's own shape (bearer header) plus an env map Go validates and never emits.
const HTTP = artifact("mcp", "grafana", {
  "grafana.json": JSON.stringify({
    type: "http",
    url: "https://grafana.example/mcp",
    headers: { Authorization: `Bearer ${v("GRAFANA_TOKEN")}` },
    env: { GRAFANA_ORG: v("GRAFANA_ORG") },
    command: "",
    args: [],
  }),
});
// http with a composite header value (literal text around the reference).
const HTTP_COMPOSITE = artifact("mcp", "wiki", {
  "wiki.json": JSON.stringify({
    type: "http",
    url: "https://wiki.example/mcp",
    headers: { "X-Api-Key": `key=${v("WIKI_KEY")}` },
  }),
});
// stdio: args, an env value built around a reference, Go's zero-valued http fields.
const STDIO = artifact("mcp", "pg", {
  "pg.json": JSON.stringify({
    type: "stdio",
    command: "mcp-postgres",
    args: ["--read-only"],
    env: { PG_DSN: `postgres://app:${v("PG_PASSWORD")}@db:5432/app`, PGUSER: v("PGUSER") },
    url: "",
    headers: {},
  }),
});
const GO_MCP = [HTTP, HTTP_COMPOSITE, STDIO];

describe("Go MCP descriptors", () => {
  it("Claude Code: every transport as written, VAR references kept anywhere in a value, http env left out", () => {
    const home = sandbox();
    const result = claudeTarget.render(GO_MCP, context("user", home, home));
    expect(result.notes).toEqual([]);
    applyResult(result);
    const servers = JSON.parse(readFileSync(join(home, ".claude.json"), "utf8")).mcpServers;
    expect(servers).toEqual({
      "cartographer-homelab-grafana": {
        type: "http",
        url: "https://grafana.example/mcp",
        headers: { Authorization: `Bearer ${v("GRAFANA_TOKEN")}` },
      },
      "cartographer-homelab-wiki": {
        type: "http",
        url: "https://wiki.example/mcp",
        headers: { "X-Api-Key": `key=${v("WIKI_KEY")}` },
      },
      "cartographer-homelab-pg": {
        type: "stdio",
        command: "mcp-postgres",
        args: ["--read-only"],
        env: { PG_DSN: `postgres://app:${v("PG_PASSWORD")}@db:5432/app`, PGUSER: v("PGUSER") },
      },
    });
  });

  it("Codex: the bearer header becomes bearer_token_env_var; what Codex cannot reference is noted, never guessed", () => {
    const home = sandbox();
    const result = codexTarget.render(GO_MCP, context("user", home, home));
    expect(result.notes).toEqual([
      "homelab/mcp/pg not written for Codex: Codex passes variables through under their own name only (env PG_DSN)",
      `homelab/mcp/wiki not written for Codex: Codex cannot send header X-Api-Key as "Bearer ${v("VAR")}" (only Authorization)`,
    ]);
    applyResult(result);
    const config = parseToml(readFileSync(join(home, ".codex", "config.toml"), "utf8")) as {
      mcp_servers: Record<string, unknown>;
    };
    expect(config.mcp_servers).toEqual({
      "cartographer-homelab-grafana": {
        url: "https://grafana.example/mcp",
        bearer_token_env_var: "GRAFANA_TOKEN",
      },
    });
  });

  it("OpenCode: every VAR reference, also inside a longer value, becomes {env:VAR}", () => {
    const home = sandbox();
    const result = opencodeTarget.render(GO_MCP, context("user", home, home));
    expect(result.notes).toEqual([]);
    applyResult(result);
    const mcp = JSON.parse(
      readFileSync(join(home, ".config", "opencode", "opencode.json"), "utf8"),
    ).mcp;
    expect(mcp).toEqual({
      "cartographer-homelab-grafana": {
        type: "remote",
        url: "https://grafana.example/mcp",
        enabled: true,
        headers: { Authorization: "Bearer {env:GRAFANA_TOKEN}" },
      },
      "cartographer-homelab-wiki": {
        type: "remote",
        url: "https://wiki.example/mcp",
        enabled: true,
        headers: { "X-Api-Key": "key={env:WIKI_KEY}" },
      },
      "cartographer-homelab-pg": {
        type: "local",
        command: ["mcp-postgres", "--read-only"],
        enabled: true,
        environment: {
          PG_DSN: "postgres://app:{env:PG_PASSWORD}@db:5432/app",
          PGUSER: "{env:PGUSER}",
        },
      },
    });
  });

  it("Kiro keeps the references; Antigravity, which expands none, takes none of them", () => {
    const home = sandbox();
    const kiro = kiroTarget.render(GO_MCP, context("user", home, home));
    expect(kiro.notes).toEqual([]);
    applyResult(kiro);
    const servers = JSON.parse(
      readFileSync(join(home, ".kiro", "settings", "mcp.json"), "utf8"),
    ).mcpServers;
    expect(servers["cartographer-homelab-wiki"]).toEqual({
      url: "https://wiki.example/mcp",
      headers: { "X-Api-Key": `key=${v("WIKI_KEY")}` },
    });
    expect(servers["cartographer-homelab-pg"].env.PG_DSN).toBe(
      `postgres://app:${v("PG_PASSWORD")}@db:5432/app`,
    );
    expect(servers["cartographer-homelab-grafana"].env).toBeUndefined();

    const ag = antigravityTarget.render(GO_MCP, context("user", home, home));
    expect(ag.sections.filter((s) => s.desired !== null)).toEqual([]);
    expect(ag.notes).toHaveLength(3);
  });

  it("still refuses what Go refuses: a literal value, a non-portable env key, a non-empty field of the other transport", () => {
    const home = sandbox();
    const bad = (name: string, d: unknown) =>
      artifact("mcp", name, { [`${name}.json`]: JSON.stringify(d) });
    const result = claudeTarget.render(
      [
        bad("literal", { type: "stdio", command: "x", env: { K: "s3cret" } }),
        bad("key", { type: "stdio", command: "x", env: { "my-key": v("K") } }),
        bad("mixed", { type: "stdio", command: "x", url: "https://a.example" }),
      ],
      context("user", home, home),
    );
    expect(result.notes).toEqual([
      'homelab/mcp/key not written: env key "my-key" is not a portable variable name',
      `homelab/mcp/literal not written: env.K must reference a ${v("VAR")} (a literal value looks like a secret)`,
      "homelab/mcp/mixed not written: unknown field(s) for stdio: url",
    ]);
    expect(result.notes.join("\n")).not.toContain("s3cret");
  });
});
