/**
 * Per-KB ssh_key against a real sshd (docs/sync.md "Credentials"): a private sshd on 127.0.0.1 (own
 * host key, one authorized client key) serves a bare KB repository over ssh://. The product's own
 * code path — cloneKb (kb clone / serve's clone) and a mounted KB's sync-out — clones and pushes
 * with the KB's key and known_hosts; a known_hosts without the server's key fails closed
 * (StrictHostKeyChecking=yes) with a message that shows no absolute path. Skipped when
 * /usr/sbin/sshd or ssh-keygen is not installed.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloneKb } from "../../../src/cli/commands/kb-clone.js";
import type { KbSettings } from "../../../src/kb/core/types.js";
import { silentLogger } from "../../../src/logger.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import { closeMount, type MountedKb, mountKb } from "../../../src/runtime/mount.js";
import {
  bareRemote,
  gitSync,
  jsonOf,
  type Remote,
  syncSettings,
} from "../../support/sync-remote.js";

const SSHD = "/usr/sbin/sshd";
const onPath = (cmd: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const hasSshd = existsSync(SSHD) && onPath("ssh-keygen") && onPath("ssh");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: "127.0.0.1", port });
    sock.once("connect", () => {
      sock.destroy();
      resolve(true);
    });
    sock.once("error", () => resolve(false));
  });
}

const keygen = (file: string) =>
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", file], {
    stdio: "ignore",
  });

/** `[127.0.0.1]:port <type> <key>` for the public key in `pubFile`. */
const knownHostsLine = (port: number, pubFile: string): string => {
  const [type, key] = readFileSync(pubFile, "utf8").trim().split(/\s+/);
  return `[127.0.0.1]:${port} ${type} ${key}\n`;
};

describe.skipIf(!hasSshd)(
  `ssh remote via a real sshd${hasSshd ? "" : " (skipped: sshd or ssh-keygen not installed)"}`,
  () => {
    let remote: Remote;
    let sshd: ChildProcess | undefined;
    let sshdLog = "";
    let url = "";
    let clientKey = "";
    let knownHosts = "";
    let strangerKnownHosts = "";
    let wrongKeyKnownHosts = "";
    const mounts: MountedKb[] = [];

    beforeAll(async () => {
      remote = await bareRemote();
      const dir = join(remote.dir, "ssh");
      mkdirSync(dir);
      const hostKey = join(dir, "host_ed25519");
      clientKey = join(dir, "client_ed25519");
      const otherKey = join(dir, "other_ed25519");
      for (const k of [hostKey, clientKey, otherKey]) keygen(k);
      const authorized = join(dir, "authorized_keys");
      writeFileSync(authorized, readFileSync(`${clientKey}.pub`), { mode: 0o600 });
      const port = await freePort();
      const config = join(dir, "sshd_config");
      writeFileSync(
        config,
        [
          `ListenAddress 127.0.0.1:${port}`,
          `HostKey ${hostKey}`,
          `AuthorizedKeysFile ${authorized}`,
          `PidFile ${join(dir, "sshd.pid")}`,
          "StrictModes no",
          "UsePAM no",
          "PermitRootLogin prohibit-password",
          "PubkeyAuthentication yes",
          "PasswordAuthentication no",
          "KbdInteractiveAuthentication no",
          "LogLevel VERBOSE",
          "",
        ].join("\n"),
      );
      // sshd started by root wants its privilege-separation directory (absent without systemd).
      if (process.getuid?.() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
      sshd = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
      sshd.stderr?.on("data", (b: Buffer) => {
        sshdLog += b.toString();
      });
      const deadline = Date.now() + 5_000;
      while (!(await accepts(port))) {
        if (sshd.exitCode !== null || Date.now() > deadline)
          throw new Error(`sshd did not start: ${sshdLog}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      knownHosts = join(dir, "known_hosts");
      writeFileSync(knownHosts, knownHostsLine(port, `${hostKey}.pub`));
      // No entry for this host at all.
      strangerKnownHosts = join(dir, "known_hosts.stranger");
      writeFileSync(
        strangerKnownHosts,
        `[127.0.0.1]:1 ${knownHostsLine(port, `${hostKey}.pub`).split(" ").slice(1).join(" ")}`,
      );
      // An entry for this host, with a key that is not the server's (a changed host key).
      wrongKeyKnownHosts = join(dir, "known_hosts.wrong");
      writeFileSync(wrongKeyKnownHosts, knownHostsLine(port, `${otherKey}.pub`));
      url = `ssh://${userInfo().username}@127.0.0.1:${port}${remote.bare}`;
    });

    afterAll(async () => {
      for (const m of mounts.splice(0)) await closeMount(m);
      if (sshd && sshd.exitCode === null) {
        const exited = new Promise((r) => sshd?.once("exit", r));
        sshd.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
        if (sshd.exitCode === null) sshd.kill("SIGKILL");
      }
      await remote?.cleanup();
    });

    const access = (hosts: string) => ({ sshKey: clientKey, knownHosts: hosts, env: process.env });

    async function mount(root: string, hosts: string) {
      const settings: KbSettings = {
        name: "kb",
        root,
        allowArtifactWrite: false,
        gitAuthor: { name: "Author ssh", email: "ssh@test.invalid" },
        autocommit: true,
        sync: syncSettings(access(hosts)),
      };
      const m = await mountKb(settings, { logger: silentLogger });
      mounts.push(m);
      const surface = surfaceForMount(m, { logger: silentLogger });
      return (id: string) =>
        surface.callTool(
          "concept_write",
          { id, frontmatter: { type: "note", title: id }, body: `${id}\n` },
          { principal: LOCAL_ADMIN, transport: "in-memory", requestId: "" },
        );
    }

    const assertNoPaths = (msg: string) => {
      expect(msg).not.toContain(clientKey);
      expect(msg).not.toContain(remote.dir); // no key, known_hosts or repository path
      expect(msg).not.toMatch(/(^|[\s'"=])\/(tmp|root|home|work)\//);
    };

    it("clones with ssh_key + known_hosts and a write's push reaches the bare repo", async () => {
      const root = join(remote.dir, "clone-ok");
      await cloneKb(url, root, access(knownHosts));
      expect(existsSync(join(root, "data", "index.md"))).toBe(true);
      const write = await mount(root, knownHosts);
      const res = await write("notes/over-ssh");
      expect(res.isError, sshdLog).toBeFalsy();
      const first = res.content[0];
      const body = jsonOf(res);
      expect(body.sync_state, first?.type === "text" ? first.text : "").toBeUndefined();
      expect(gitSync(remote.bare, "log", "-1", "--format=%s", "main").trim()).toBe(
        "concept_write: notes/over-ssh",
      );
      expect(gitSync(remote.bare, "ls-tree", "-r", "--name-only", "main")).toContain(
        "notes/over-ssh.md",
      );
    });

    it("clone fails closed when known_hosts has no key for the server; no path in the error", async () => {
      const root = join(remote.dir, "clone-stranger");
      const err = await cloneKb(url, root, access(strangerKnownHosts)).then(
        () => null,
        (e: Error) => e,
      );
      expect(err).toBeInstanceOf(Error);
      const msg = String(err?.message);
      expect(msg).toMatch(/git clone failed/);
      expect(msg).toMatch(/Host key verification failed|No \S+ host key is known/);
      assertNoPaths(msg);
      expect(existsSync(join(root, "data", "index.md"))).toBe(false);
    });

    it("push fails closed on a changed host key: the write stays local, sync_state failed, no path", async () => {
      const root = join(remote.dir, "clone-then-wrong");
      await cloneKb(url, root, access(knownHosts));
      const before = gitSync(remote.bare, "rev-parse", "main").trim();
      const write = await mount(root, wrongKeyKnownHosts);
      const res = await write("notes/must-not-land");
      expect(res.isError).toBeFalsy();
      const body = jsonOf(res);
      expect(body.sync_state).toBe("failed");
      const lastError = String(body.last_error);
      expect(lastError).toMatch(/push|pull|fetch/);
      expect(lastError).toMatch(/Host key verification failed|HOST IDENTIFICATION HAS CHANGED/);
      assertNoPaths(lastError);
      expect(gitSync(remote.bare, "rev-parse", "main").trim()).toBe(before);
    });
  },
);
