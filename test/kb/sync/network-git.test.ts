/**
 * A remote that accepts TCP and never answers (docs/sync.md "Timeouts"): every git network command
 * is bounded (curl's low-speed limit, then a hard kill of git and its helpers), reads never wait
 * for the pull, a write waits at most git.network_timeout and lands locally, and shutdown's abort
 * ends a hung fetch at once.
 */
import { execFileSync } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  abortNetworkGit,
  resetNetworkGit,
  runNetworkGit,
} from "../../../src/kb/sync/network-git.js";
import { remoteAccess } from "../../../src/kb/sync/remote-access.js";
import { silentLogger } from "../../../src/logger.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import { closeMount, type MountedKb, mountKb } from "../../../src/runtime/mount.js";
import { callSurface } from "../../support/call-tool.js";
import {
  bareRemote,
  gitSync,
  jsonOf,
  type Remote,
  syncSettings,
} from "../../support/sync-remote.js";

/** A TCP listener on 127.0.0.1 that accepts every connection and never sends a byte. */
async function silentListener(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/team/kb.git`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  resetNetworkGit();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const env = { ...process.env, GIT_TERMINAL_PROMPT: "0" };

describe("network timeout", () => {
  it("the hard kill ends a fetch from a silent remote after network_timeout", async () => {
    const hung = await silentListener();
    cleanups.push(hung.close);
    const t0 = Date.now();
    const r = await runNetworkGit(process.cwd(), ["ls-remote", hung.url], env, 1_000);
    const took = Date.now() - t0;
    expect(r.code).toBe(124);
    expect(r.stderr).toContain("git.network_timeout");
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3_000);
  });

  it("without the hard kill, the HTTP low-speed limit of remoteAccess ends it too", async () => {
    const hung = await silentListener();
    cleanups.push(hung.close);
    const access = remoteAccess({ networkTimeoutMs: 2_000 }, env);
    expect(access.args).toContain("http.lowSpeedTime=2");
    const t0 = Date.now();
    const r = await runNetworkGit(process.cwd(), [...access.args, "ls-remote", hung.url], env, 0);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/too slow/i);
    expect(Date.now() - t0).toBeLessThan(6_000);
  });

  it("ssh gets ConnectTimeout and keep-alives unless the server brings its own ssh command", () => {
    const access = remoteAccess({ networkTimeoutMs: 30_000 }, {});
    expect(access.env.GIT_SSH_COMMAND).toBe(
      "ssh -o ConnectTimeout=30 -o ServerAliveInterval=10 -o ServerAliveCountMax=3",
    );
    expect(
      remoteAccess({ networkTimeoutMs: 30_000 }, { GIT_SSH_COMMAND: "x" }).env,
    ).not.toHaveProperty("GIT_SSH_COMMAND");
    expect(
      remoteAccess({ sshKey: "/k/id", networkTimeoutMs: 5_000 }).env.GIT_SSH_COMMAND,
    ).toContain("-o ConnectTimeout=5");
  });

  it("shutdown's abort kills a hung fetch at once", async () => {
    const hung = await silentListener();
    cleanups.push(hung.close);
    const t0 = Date.now();
    const pending = runNetworkGit(process.cwd(), ["ls-remote", hung.url], env, 60_000);
    await new Promise((r) => setTimeout(r, 300));
    abortNetworkGit();
    const r = await pending;
    expect(r.code).not.toBe(0);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it("a KB whose remote hangs: reads answer at once, a write within the timeout, locally", async () => {
    const remote: Remote = await bareRemote();
    cleanups.push(remote.cleanup);
    const hung = await silentListener();
    cleanups.push(hung.close);
    const root = join(remote.dir, "b");
    gitSync(remote.dir, "clone", "-q", remote.bare, root);
    gitSync(root, "remote", "set-url", "origin", hung.url);
    const mount: MountedKb = await mountKb(
      {
        name: "kb",
        root,
        allowArtifactWrite: false,
        gitAuthor: { name: "B", email: "b@test.invalid" },
        autocommit: true,
        sync: syncSettings({ networkTimeoutMs: 1_500 }),
      },
      { logger: silentLogger },
    );
    cleanups.push(() => closeMount(mount));
    const surface = surfaceForMount(mount, { logger: silentLogger });
    const call = (tool: string, args: Record<string, unknown>) => callSurface(surface, tool, args);

    const t0 = Date.now();
    const write = await call("concept_write", {
      id: "during",
      frontmatter: { type: "note", title: "during" },
      body: "written while the remote hangs\n",
    });
    const wrote = Date.now() - t0;
    expect(write.isError, JSON.stringify(write)).toBeFalsy();
    expect(wrote).toBeLessThan(1_500 * 2 + 2_000); // the pull, then the inline push, each bounded
    expect(jsonOf(write).sync_state).toBe("failed");
    expect(execFileSync("git", ["log", "-1", "--format=%s"], { cwd: root, encoding: "utf8" })).toBe(
      "concept_write: during\n",
    );

    // A read starts the pull in the background (it hangs for 1.5 s) and answers from the tree.
    for (let i = 0; i < 3; i++) {
      const r0 = Date.now();
      const read = await call("concept_read", { id: "during" });
      expect(read.isError).toBeFalsy();
      expect(Date.now() - r0).toBeLessThan(500);
    }
    const status = jsonOf(await call("kb_status", {}));
    expect(status).toBeTruthy();
  }, 20_000);
});
