import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, GIT_ENV, type RunningServer, runBin, startServer, tempDir } from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function sandbox() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

async function serve(args: string[], cwd: string, env = cleanEnv(GIT_ENV)): Promise<RunningServer> {
  const server = await startServer(args, { cwd, env });
  cleanups.push(() => server.stop());
  return server;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

describe("cartographer serve over HTTP (the built binary)", () => {
  it("embedded default: a fresh directory gets ./cartographer-data with a starter KB 'notes'", async () => {
    const dir = sandbox();
    const server = await serve(["--http", "127.0.0.1:0"], dir);
    expect(existsSync(join(dir, "cartographer-data", "notes", "data", "index.md"))).toBe(true);
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health).toMatchObject({
      status: "ok",
      kbs: [{ name: "notes", status: "ok" }],
      mount_mode: "routed",
      routed_path: "/mcp/routed",
    });
    expect(server.stdout()).toMatch(/\/mcp\/routed/);
    expect(server.stdout()).toMatch(/cartographer connect/);

    const client = await connect(`${server.url}/mcp/routed`);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("concept_write");
    const write = await client.callTool({
      name: "concept_write",
      arguments: {
        id: "first-note",
        frontmatter: { type: "note", title: "First" },
        body: "Hello KB.",
      },
    });
    expect(write.isError).toBeFalsy();
    const found = await client.callTool({ name: "search", arguments: { query: "Hello" } });
    expect(JSON.stringify(found.content)).toMatch(/first-note/);
    const log = execFileSync("git", ["log", "--format=%s"], {
      cwd: join(dir, "cartographer-data", "notes"),
      encoding: "utf8",
    });
    expect(log.split("\n")[0]).toBe("concept_write: first-note");

    // A second start reuses the data directory instead of creating another KB.
    expect(await server.stop()).toBe(0);
    const again = await serve(["--http", "127.0.0.1:0"], dir);
    const health2 = await (await fetch(`${again.url}/health`)).json();
    // index: the background build's progress, any state while it runs.
    expect(health2.kbs).toEqual([
      {
        name: "notes",
        status: "ok",
        index: {
          state: expect.stringMatching(/^(queued|building|ready)$/),
          done: expect.any(Number),
          total: expect.any(Number),
        },
      },
    ]);
  });

  it("prints each deprecation warning exactly once and skips a KB named routed", async () => {
    const dir = sandbox();
    const env = cleanEnv({
      ...GIT_ENV,
      CARTOGRAPHER_MCP_MOUNT_MODE: "routed",
      CARTOGRAPHER_MCP_TOOL_PREFIX_MODE: "kb-name",
    });
    for (const name of ["alpha", "other"])
      expect((await runBin(["kb", "create", name, "--data", "kbs"], { cwd: dir, env })).code).toBe(
        0,
      );
    // The CLI refuses to create a KB named routed; an operator can still rename a folder to it.
    renameSync(join(dir, "kbs", "other"), join(dir, "kbs", "routed"));
    writeFileSync(
      join(dir, "c.yaml"),
      "data: kbs\nmcp:\n  mount_mode: per-kb\n  tool_prefix_mode: kb-name\nkbs:\n  - path: kbs/alpha\n    tool_prefix: a\n",
    );
    const server = await serve(
      ["--config", "c.yaml", "--http", "127.0.0.1:0", "--mount-mode", "routed"],
      dir,
      env,
    );
    const err = server.stderr();
    for (const key of [
      "mcp.mount_mode",
      "CARTOGRAPHER_MCP_MOUNT_MODE",
      "--mount-mode",
      "mcp.tool_prefix_mode",
      "CARTOGRAPHER_MCP_TOOL_PREFIX_MODE",
      "kbs.0.tool_prefix",
    ]) {
      expect(
        err.split("\n").filter((l) => l.includes(key) && l.includes("deprecated")),
      ).toHaveLength(1);
    }
    expect(
      err.split("\n").filter((l) => l.includes("'routed'") && l.includes("skipped")),
    ).toHaveLength(1);
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health.kbs).toEqual([
      {
        name: "alpha",
        status: "ok",
        index: {
          state: expect.stringMatching(/^(queued|building|ready)$/),
          done: expect.any(Number),
          total: expect.any(Number),
        },
      },
    ]);
  });

  it("one bad KB never stops the server: it is logged and reported, the good KB is served", async () => {
    const dir = sandbox();
    const env = cleanEnv(GIT_ENV);
    expect((await runBin(["kb", "create", "good", "--data", "kbs"], { cwd: dir, env })).code).toBe(
      0,
    );
    mkdirSync(join(dir, "kbs", "notakb"));
    writeFileSync(join(dir, "c.yaml"), "kbs:\n  - path: kbs/good\n  - path: kbs/notakb\n");
    const server = await serve(["--config", "c.yaml", "--http", "127.0.0.1:0"], dir, env);
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health.kbs).toEqual([
      {
        name: "good",
        status: "ok",
        index: {
          state: expect.stringMatching(/^(queued|building|ready)$/),
          done: expect.any(Number),
          total: expect.any(Number),
        },
      },
      { name: "notakb", status: "unavailable", reason: expect.stringContaining("not a KB") },
    ]);
    expect(JSON.stringify(health)).not.toContain(dir);
    expect(server.stderr()).toMatch(/KB 'notakb' .* could not be opened and is unavailable/);
    expect(server.stdout()).toMatch(/KB notakb\s+UNAVAILABLE/);
    const client = await connect(`${server.url}/mcp/good`);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("stops gracefully on SIGTERM and SIGINT with exit 0", async () => {
    const dir = sandbox();
    const a = await serve(["--http", "127.0.0.1:0"], dir);
    expect(await a.stop("SIGTERM")).toBe(0);
    const b = await serve(["--http", "127.0.0.1:0"], dir);
    expect(await b.stop("SIGINT")).toBe(0);
  });

  it("refuses a bad config with exit 2 naming the key, and never starts", async () => {
    const dir = sandbox();
    writeFileSync(join(dir, "c.yaml"), "tools:\n  profile: huge\n");
    const res = await runBin(["serve", "--config", "c.yaml", "--http", "127.0.0.1:0"], {
      cwd: dir,
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/tools\.profile/);
  });
});
