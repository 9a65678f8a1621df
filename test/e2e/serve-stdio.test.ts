import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, cleanEnv, GIT_ENV, runBin, tempDir } from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function kbs(names: string[]): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const env = cleanEnv(GIT_ENV);
  for (const n of names)
    expect((await runBin(["kb", "create", n, "--data", "kbs"], { cwd: t.dir, env })).code).toBe(0);
  return { dir: t.dir, env };
}

async function stdioClient(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "serve", ...args],
    cwd,
    env: env as Record<string, string>,
    stderr: "pipe",
  });
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

describe("cartographer serve over stdio (the built binary)", () => {
  it("one KB: its own surface, no kb argument; writes commit", async () => {
    const { dir, env } = await kbs(["solo"]);
    const client = await stdioClient(["--kb", join("kbs", "solo")], dir, env);
    expect(client.getServerVersion()?.name).toBe("cartographer");
    const { tools } = await client.listTools();
    const write = tools.find((t) => t.name === "concept_write");
    expect(write?.inputSchema.properties).not.toHaveProperty("kb");
    expect(tools.some((t) => t.name === "commit_gate")).toBe(false); // advanced: hidden in the agent profile
    const res = await client.callTool({
      name: "concept_write",
      arguments: { id: "a", frontmatter: { type: "note" }, body: "alpha" },
    });
    expect(res.isError).toBeFalsy();
    const read = await client.callTool({ name: "concept_read", arguments: { id: "a" } });
    expect(JSON.stringify(read.content)).toMatch(/alpha/);
  });

  it("two KBs: one routed surface whose tools take a required kb enum", async () => {
    const { dir, env } = await kbs(["one", "two"]);
    const client = await stdioClient(
      ["--kb", "kbs/one", "--kb", "kbs/two", "--tools-profile", "full"],
      dir,
      env,
    );
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "search");
    expect(search?.inputSchema.required).toContain("kb");
    const properties = (search?.inputSchema.properties ?? {}) as Record<
      string,
      { enum?: string[] }
    >;
    expect(properties.kb?.enum).toEqual(["one", "two"]);
    expect(tools.some((t) => t.name === "concept_batch")).toBe(true);
    const missing = await client.callTool({ name: "concept_read", arguments: { id: "x" } });
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toMatch(/one.*two/);
  });

  it("a KB that cannot open is skipped with an error line; with none left stdio exits 2", async () => {
    const { dir, env } = await kbs(["good"]);
    mkdirSync(join(dir, "kbs", "notakb"));
    const client = await stdioClient(["--kb", "kbs/good", "--kb", "kbs/notakb"], dir, env);
    const { tools } = await client.listTools();
    const write = tools.find((t) => t.name === "concept_write");
    expect(write?.inputSchema.properties).not.toHaveProperty("kb"); // only the good KB is served
    const alone = await runBin(["serve", "--kb", "kbs/notakb"], { cwd: dir, env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/none could be opened: 'notakb' \(not_found: .*not a KB/);
  });

  it("answers a malformed line with a JSON-RPC error and keeps serving; stdout is protocol only", async () => {
    const { dir, env } = await kbs(["solo"]);
    const proc = spawn(process.execPath, [BIN, "serve", "--kb", "kbs/solo"], {
      cwd: dir,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    cleanups.push(() => {
      proc.kill();
    });
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.stdin.write("this is not json\n");
    proc.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`,
    );
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answers; stdout so far: ${out}`)),
        20_000,
      );
      proc.stdout.on("data", () => {
        if (out.split("\n").filter(Boolean).length >= 3) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const lines = out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    expect(lines.find((l) => l.id === 1)?.result?.serverInfo?.name).toBe("cartographer");
    expect(lines.find((l) => l.id === 2)?.result).toEqual({});
  });
});

describe("stdio shutdown", () => {
  it("exits 0 on SIGTERM even while the client keeps stdin open", async () => {
    const { dir, env } = await kbs(["solo"]);
    const proc = spawn(process.execPath, [BIN, "serve", "--kb", "kbs/solo"], {
      cwd: dir,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    cleanups.push(() => {
      proc.kill("SIGKILL");
    });
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`,
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no initialize answer")), 20_000);
      proc.stdout.on("data", () => {
        if (out.includes('"id":1')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const exited = new Promise<number | null>((resolve) =>
      proc.on("exit", (code) => resolve(code)),
    );
    proc.kill("SIGTERM");
    const code = await Promise.race([
      exited,
      new Promise<string>((r) => setTimeout(() => r("still running"), 10_000)),
    ]);
    expect(code).toBe(0);
  });
});
