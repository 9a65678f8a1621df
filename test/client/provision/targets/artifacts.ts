/**
 * The artifact set every target test renders: the Go fixture KB's real skill (read from
 * test/fixtures/go-kb-homelab-lite/skills/) plus a synthetic agent, hook, MCP descriptors and
 * instructions, built as the manifest reader hands them over (content hash recomputed).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type {
  Artifact,
  ArtifactFile,
  RenderContext,
} from "../../../../src/client/provision/types.js";
import { artifactContentHash } from "../../../../src/common/provisioning/artifact-sign.js";
import { GO_FIXTURE_KB } from "../../../support/fixture.js";

export function artifact(
  kind: Artifact["kind"],
  name: string,
  files: Record<string, string | { text: string; exec: boolean }>,
  kb = "homelab",
): Artifact {
  const list: ArtifactFile[] = Object.entries(files).map(([path, v]) => ({
    path,
    executable: typeof v === "string" ? false : v.exec,
    bytes: Buffer.from(typeof v === "string" ? v : v.text, "utf8"),
  }));
  return {
    kb,
    kind,
    name,
    source: `kb:${kb}`,
    version: "",
    contentHash: artifactContentHash(
      list.map((f) => ({ path: f.path, executable: f.executable, content: f.bytes })),
    ),
    files: list,
    signature: null,
  };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** The fixture KB's skills, every file, executable bits from the checkout. */
export function fixtureSkills(): Artifact[] {
  const root = join(GO_FIXTURE_KB, "skills");
  return readdirSync(root).map((name) => {
    const dir = join(root, name);
    const files: Record<string, { text: string; exec: boolean }> = {};
    for (const p of walk(dir)) {
      files[relative(dir, p)] = {
        text: readFileSync(p, "utf8"),
        exec: (statSync(p).mode & 0o100) !== 0,
      };
    }
    return artifact("skill", name, files);
  });
}

export const AGENT = artifact("agent", "kb-reviewer", {
  "kb-reviewer.md":
    "---\nname: kb-reviewer\ndescription: Reviews KB concepts for broken links.\ntools: Read, Grep\nmodel: sonnet\n---\nYou review the homelab KB.\nReport broken links.\n",
});

export const HOOK = artifact("hook", "fmt", {
  "hook.json":
    '{"event":"PostToolUse","command":"./fmt.sh","args":["--check","a b"],"matcher":"Edit|Write","timeout":30}\n',
  "fmt.sh": { text: "#!/bin/sh\nexit 0\n", exec: true },
  "lib/common.sh": "# sourced\n",
});

export const MCP_HTTP = artifact("mcp", "grafana", {
  "grafana.json": `{"type":"http","url":"https://grafana.example/mcp","headers":{"Authorization":"Bearer \${GRAFANA_TOKEN}"}}`,
});

export const MCP_STDIO = artifact("mcp", "files", {
  "files.json": `{"type":"stdio","command":"mcp-files","args":["--root","/srv"],"env":{"FILES_KEY":"\${FILES_KEY}"}}`,
});

export const INSTRUCTIONS = artifact("instructions", "homelab", {
  "instructions.md": "Use the homelab KB for infrastructure questions.\n",
});

export function fullSet(): Artifact[] {
  return [...fixtureSkills(), AGENT, HOOK, MCP_HTTP, MCP_STDIO, INSTRUCTIONS];
}

export function context(
  scope: "user" | "project",
  home: string,
  projectDir: string,
  extra: Partial<RenderContext> = {},
): RenderContext {
  return {
    scope,
    home,
    projectDir,
    env: {},
    serverName: "cartographer",
    bootstrapHook: false,
    ...extra,
  };
}

/** A user MCP file as it may already exist: the Kiro and Antigravity section laws run against it. */
export const USER_MCP = `${JSON.stringify(
  {
    mcpServers: {
      cartographer: { url: "http://127.0.0.1:39273/mcp/routed", autoApprove: ["search"] },
    },
  },
  null,
  2,
)}\n`;
