/**
 * The built server against remotes that misbehave (docs/sync.md "Timeouts", "Recovery after a
 * crash"): a remote that accepts TCP and never answers must not hold SIGTERM (exit within the drain
 * budget while a write's pull hangs, with git.network_timeout far longer); a force-push shows the
 * KB `diverged` in sync_status and /health, and `cartographer kb resync` keeps the remote and
 * re-applies only this server's commits, after which a restarted server syncs again.
 */
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { bareRemote, gitSync, type Remote, remoteLog } from "../support/sync-remote.js";
import { cleanEnv, type RunningServer, runBin, startServer } from "./helpers.js";

const ENV = cleanEnv({
  CARTOGRAPHER_SYNC_IN_WINDOW: "0",
  CARTOGRAPHER_SYNC_OUT_DEBOUNCE: "0",
  CARTOGRAPHER_GIT_POLL_SECONDS: "0",
  CARTOGRAPHER_INDEX_REFRESH_SECONDS: "0",
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

async function newRemote(): Promise<Remote> {
  const remote = await bareRemote();
  cleanups.push(remote.cleanup);
  return remote;
}

function cloneFor(remote: Remote, name: string): string {
  const root = join(remote.dir, name);
  gitSync(remote.dir, "clone", "-q", remote.bare, root);
  gitSync(root, "config", "user.name", `instance ${name}`);
  gitSync(root, "config", "user.email", `${name}@e2e.invalid`);
  return root;
}

async function serve(root: string, cwd: string, env = ENV) {
  const server: RunningServer = await startServer(["--http", "127.0.0.1:0", "--kb", root], {
    cwd,
    env,
  });
  cleanups.push(() => server.stop("SIGKILL"));
  const client = new Client({ name: "e2e-hostile", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  cleanups.push(() => client.close());
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { server, call };
}

const json = (r: CallToolResult) =>
  JSON.parse((r.content[0] as { text: string }).text) as Record<string, unknown>;
const write = (
  call: (n: string, a: Record<string, unknown>) => Promise<CallToolResult>,
  id: string,
) => call("concept_write", { id, frontmatter: { type: "note", title: id }, body: `${id}\n` });

describe("hostile remotes, built server", () => {
  it("SIGTERM while a write's pull hangs on a silent remote: exits within the drain budget", async () => {
    const remote = await newRemote();
    const sockets = new Set<Socket>();
    const silent = createServer((s) => {
      sockets.add(s);
      s.on("error", () => {});
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    cleanups.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    });
    const root = cloneFor(remote, "b");
    const port = (silent.address() as { port: number }).port;
    gitSync(root, "remote", "set-url", "origin", `http://127.0.0.1:${port}/team/kb.git`);
    const { server, call } = await serve(root, remote.dir, {
      ...ENV,
      CARTOGRAPHER_GIT_NETWORK_TIMEOUT: "120",
    });
    const pending = write(call, "hung").catch(() => null);
    await expect.poll(() => sockets.size, { timeout: 10_000 }).toBeGreaterThan(0);
    const t0 = Date.now();
    const code = await server.stop("SIGTERM");
    const took = Date.now() - t0;
    await pending;
    expect(code).toBe(0);
    // The drain budget is 10 s for calls plus 5 s for the final push; a killed fetch needs none.
    expect(took).toBeLessThan(8_000);
    // The write that was under way landed locally (its pull was stopped, not the write).
    expect(gitSync(root, "log", "--format=%s").split("\n")).toContain("concept_write: hung");
  }, 60_000);

  it("force-push: diverged in sync_status and /health; kb resync; a restarted server syncs", async () => {
    const remote = await newRemote();
    const root = cloneFor(remote, "b");
    const first = await serve(root, remote.dir);
    expect((await write(first.call, "leaked")).isError).toBeFalsy();
    const human = cloneFor(remote, "human");
    gitSync(human, "reset", "-q", "--hard", "HEAD~1");
    gitSync(human, "commit", "-q", "--allow-empty", "-m", "human: drop the leak");
    gitSync(human, "push", "-q", "--force", "origin", "HEAD:main");

    expect((await write(first.call, "kept")).isError).toBeFalsy();
    expect(json(await first.call("sync_status", {})).state).toBe("diverged");
    const health = (await (await fetch(`${first.server.url}/health`)).json()) as {
      kbs: { status: string; sync?: string }[];
    };
    expect(health.kbs[0]).toMatchObject({ status: "degraded", sync: "diverged" });
    expect(remoteLog(remote)).not.toContain("concept_write: leaked");
    expect(await first.server.stop("SIGTERM")).toBe(0);

    const resync = await runBin(["kb", "resync", root], { cwd: remote.dir, env: ENV });
    expect(resync.code, resync.stderr).toBe(0);
    expect(resync.stdout).toMatch(/1 unpushed commit\(s\) re-applied/);
    const subjects = remoteLog(remote);
    expect(subjects.slice(0, 2)).toEqual(["concept_write: kept", "human: drop the leak"]);
    expect(subjects).not.toContain("concept_write: leaked");

    const second = await serve(root, remote.dir);
    expect((await write(second.call, "after-resync")).isError).toBeFalsy();
    expect(json(await second.call("sync_status", {})).state).toBe("clean");
    expect(remoteLog(remote)[0]).toBe("concept_write: after-resync");
  }, 90_000);
});
