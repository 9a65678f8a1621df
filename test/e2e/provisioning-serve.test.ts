/**
 * The built binary end to end (run `npm run build` first): a YAML config with
 * `artifact_signing_seed` and `mcp_allowlist` reaches the KB, and artifact_manifest over real
 * HTTP returns the KB-root artifacts signed with the configured key and the allow-listed MCP
 * descriptor only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  artifactContentHash,
  verifyArtifactSignature,
} from "../../src/common/provisioning/artifact-sign.js";
import { initKb } from "../../src/kb/store/init.js";
import { cleanEnv, GIT_ENV, startServer, tempDir } from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const PINNED = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

describe("artifact_manifest from the built server", () => {
  it("signs KB artifacts with the configured seed and offers only allow-listed MCP descriptors", async () => {
    const t = tempDir("carto-prov-e2e-");
    cleanups.push(t.cleanup);
    const kb = join(t.dir, "lab");
    await initKb(kb, { gitAuthor: { name: "t", email: "t@t.invalid" } });
    mkdirSync(join(kb, "skills", "ops"), { recursive: true });
    writeFileSync(join(kb, "skills", "ops", "SKILL.md"), "---\nname: ops\nversion: 1\n---\nOps.\n");
    mkdirSync(join(kb, "mcp"));
    writeFileSync(
      join(kb, "mcp", "tools.json"),
      '{"type":"http","url":"https://tools.example/mcp"}',
    );
    writeFileSync(join(kb, "mcp", "other.json"), '{"type":"stdio","command":"other-mcp"}');
    writeFileSync(
      join(t.dir, "c.yaml"),
      [
        "kbs:",
        "  - path: lab",
        `    artifact_signing_seed: "${SEED}"`,
        "    mcp_allowlist:",
        "      - { name: tools, transport: http, target: https://tools.example/mcp }",
        "",
      ].join("\n"),
    );
    const server = await startServer(["--config", "c.yaml", "--http", "127.0.0.1:0"], {
      cwd: t.dir,
      env: cleanEnv(GIT_ENV),
    });
    cleanups.push(() => server.stop());
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/routed`)));
    cleanups.push(() => client.close());

    const r = await client.callTool({ name: "artifact_manifest", arguments: {} });
    expect(r.isError).toBeFalsy();
    const m = JSON.parse((r.content as { text: string }[])[0]?.text ?? "{}");
    expect(m.signing_key.public_key).toBe(PINNED);
    const names = m.artifacts.map((a: { kind: string; name: string }) => `${a.kind}/${a.name}`);
    expect(names).toContain("skill/ops");
    expect(names).toContain("mcp/tools");
    expect(names).not.toContain("mcp/other");
    for (const a of m.artifacts) {
      if (a.source === "bundle") continue;
      const hash = artifactContentHash(
        a.files.map((f: { path: string; executable: boolean; content: string }) => ({
          path: f.path,
          executable: f.executable,
          content: new TextEncoder().encode(f.content),
        })),
      );
      const id = {
        source: "kb:lab",
        kind: a.kind,
        name: a.name,
        version: a.version,
        contentHash: hash,
      };
      expect(verifyArtifactSignature(PINNED, id, a.signature), a.name).toBe(true);
    }
    expect(server.stderr()).not.toContain(SEED);
  });
});
