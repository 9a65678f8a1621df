/**
 * Remote KBs from the built binary (docs/sync.md "Configuration"): `cartographer kb clone URL`
 * clones into <data>/<name>, refuses an existing folder; `serve` clones CARTOGRAPHER_KB_REMOTES
 * into the data directory and serves them; a clone that fails leaves that KB unavailable, never
 * fatal; SIGTERM pushes what a long debounce still holds before the process exits.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bareRemote, gitSync, type Remote } from "../support/sync-remote.js";
import { cleanEnv, runBin, startServer } from "./helpers.js";

let remote: Remote;
beforeAll(async () => {
  remote = await bareRemote();
});
afterAll(async () => {
  await remote?.cleanup();
});

describe("remote KBs from the CLI", () => {
  it("kb clone: <data>/<name from the URL>; a second clone is refused", async () => {
    const data = join(remote.dir, "d1");
    const first = await runBin(["kb", "clone", remote.bare, "--data", data], {
      cwd: remote.dir,
      env: cleanEnv(),
    });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("cloned KB 'remote'");
    expect(existsSync(join(data, "remote", "data", "index.md"))).toBe(true);
    const again = await runBin(["kb", "clone", remote.bare, "--data", data], {
      cwd: remote.dir,
      env: cleanEnv(),
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exists");
  }, 30_000);

  it("serve clones CARTOGRAPHER_KB_REMOTES and serves them; a bad remote is unavailable", async () => {
    const data = join(remote.dir, "d2");
    const bad = join(remote.dir, "missing.git");
    const server = await startServer(["--http", "127.0.0.1:0", "--data", data], {
      cwd: remote.dir,
      env: cleanEnv({ CARTOGRAPHER_KB_REMOTES: `${remote.bare},${bad}` }),
    });
    try {
      const health = (await (await fetch(`${server.url}/health`)).json()) as {
        kbs: { name: string; status: string; reason?: string }[];
      };
      expect(health.kbs.find((k) => k.name === "remote")?.status).toBe("ok");
      const missing = health.kbs.find((k) => k.name === "missing");
      expect(missing?.status).toBe("unavailable");
      expect(JSON.stringify(health)).not.toContain(remote.dir);
      expect(server.stderr()).toContain("could not be cloned");
    } finally {
      await server.stop();
    }
  }, 30_000);

  it("SIGTERM flushes a pending debounced push before exiting", async () => {
    const root = join(remote.dir, "term");
    gitSync(remote.dir, "clone", "-q", remote.bare, root);
    const server = await startServer(["--http", "127.0.0.1:0", "--kb", root], {
      cwd: remote.dir,
      env: cleanEnv({ CARTOGRAPHER_SYNC_OUT_DEBOUNCE: "60" }),
    });
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const res = await client.callTool({
      name: "concept_write",
      arguments: { id: "before-term", frontmatter: { type: "note" }, body: "x\n" },
    });
    expect(JSON.parse((res.content as { text: string }[])[0]?.text ?? "{}").sync_state).toBe(
      "pending",
    );
    await client.close();
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(gitSync(remote.bare, "log", "-1", "--format=%s", "main").trim()).toBe(
      "concept_write: before-term",
    );
  }, 30_000);
});
