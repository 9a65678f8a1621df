/**
 * Per-KB provisioning settings resolved once at the edge: `artifact_signing_seed` and
 * `mcp_allowlist` (Go's format) reach the KB settings; a bad seed names its key, never its value.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { useTempDirs } from "../../support/temp-dir.js";

const newDir = useTempDirs("carto-prov-config-");

function configWith(kbLines: string): string {
  const d = newDir();
  mkdirSync(join(d, "kb", "data"), { recursive: true });
  writeFileSync(join(d, "kb", "data", "index.md"), "---\ntype: Index\n---\n");
  writeFileSync(join(d, "c.yaml"), `kbs:\n  - path: kb\n${kbLines}`);
  return d;
}

describe("provisioning config", () => {
  it("carries the signing seed (lowercased) and the allow-list into the KB mount", () => {
    const d = configWith(
      `    artifact_signing_seed: "${"AB".repeat(32)}"\n    mcp_allowlist:\n      - { name: files, transport: stdio, target: mcp-files }\n`,
    );
    const config = resolveServerConfig({ config: join(d, "c.yaml") }, {}, d);
    expect(config.kbs[0]).toMatchObject({
      artifactSigningSeed: "ab".repeat(32),
      mcpAllowlist: [{ name: "files", transport: "stdio", target: "mcp-files" }],
    });
    expect(config.warnings.join("\n")).not.toContain("artifact_signing_seed");
  });

  it("absent keys: unsigned, no MCP descriptor offered", () => {
    const d = configWith("");
    const config = resolveServerConfig({ config: join(d, "c.yaml") }, {}, d);
    expect(config.kbs[0]?.artifactSigningSeed).toBeUndefined();
    expect(config.kbs[0]?.mcpAllowlist).toBeUndefined();
  });

  it("a malformed seed or allow-list entry fails naming the key, never echoing the seed", () => {
    const secret = "deadbeef-not-a-seed";
    const d = configWith(`    artifact_signing_seed: "${secret}"\n`);
    let message = "";
    try {
      resolveServerConfig({ config: join(d, "c.yaml") }, {}, d);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("artifact_signing_seed");
    expect(message).not.toContain(secret);
    const bad = configWith(
      "    mcp_allowlist:\n      - { name: x, transport: websocket, target: y }\n",
    );
    expect(() => resolveServerConfig({ config: join(bad, "c.yaml") }, {}, bad)).toThrow(
      /mcp_allowlist/,
    );
  });
});
