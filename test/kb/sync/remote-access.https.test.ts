/**
 * HTTPS-token remotes against a real git server on loopback (docs/sync.md "Credentials"): `git
 * http-backend` behind a node http server on 127.0.0.1 that demands the token, and a second server
 * on another loopback host that records every credential it is sent. The token reaches only the
 * configured host: a 302 to the other host is not followed and gives it nothing; a token embedded
 * in the remote URL is moved out of argv and git's config into the clone's credential helper, and
 * no inherited `store` helper writes it to disk.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cloneKb } from "../../../src/cli/commands/kb-clone.js";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { silentLogger } from "../../../src/logger.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import { surfaceForMount } from "../../../src/mcp/surface-for-mount.js";
import { closeMount, mountKb } from "../../../src/runtime/mount.js";
import {
  bareRemote,
  gitSync,
  type Remote,
  remoteLog,
  syncSettings,
  textOf,
} from "../../support/sync-remote.js";

const TOKEN = "ghp_LOOPBACKCANARY0123456789";
const BASIC = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`;

interface Loopback {
  url: string;
  /** Authorization headers received. */
  seen: string[];
  close: () => Promise<void>;
}

async function listen(host: string, handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server: Server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** CGI: one request through `git http-backend` over the bare repositories in `projectRoot`. */
function httpBackend(projectRoot: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://loopback");
  const child = spawn("git", ["http-backend"], {
    env: {
      ...process.env,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? "GET",
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
      HTTP_GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
      REMOTE_USER: "x-access-token",
      REMOTE_ADDR: "127.0.0.1",
    },
  });
  req.pipe(child.stdin);
  const out: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.on("close", () => {
    const all = Buffer.concat(out);
    const split = all.indexOf("\r\n\r\n");
    const head = all.subarray(0, split).toString("utf8").split("\r\n");
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head) {
      const i = line.indexOf(":");
      const [k, v] = [line.slice(0, i).trim(), line.slice(i + 1).trim()];
      if (k.toLowerCase() === "status") status = Number.parseInt(v, 10);
      else if (k) headers[k] = v;
    }
    res.writeHead(status, headers);
    res.end(all.subarray(split + 4));
  });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** The git server for `remote` (demands TOKEN), or one answering 302 to `redirectTo`. */
async function gitServer(remote: Remote, redirectTo?: string): Promise<Loopback> {
  const seen: string[] = [];
  const s = await listen("127.0.0.1", (req, res) => {
    seen.push(String(req.headers.authorization ?? ""));
    if (redirectTo) {
      res.writeHead(302, { Location: `${redirectTo}${req.url}` });
      res.end();
      return;
    }
    if (req.headers.authorization !== BASIC) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' });
      res.end();
      return;
    }
    httpBackend(remote.dir, req, res);
  });
  closers.push(s.close);
  return { url: `${s.base}/remote.git`, seen, close: s.close };
}

/** Another loopback host that asks for credentials and records whatever it gets. */
async function thief(): Promise<Loopback> {
  const seen: string[] = [];
  const s = await listen("127.0.0.2", (req, res) => {
    seen.push(String(req.headers.authorization ?? ""));
    res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' });
    res.end();
  });
  closers.push(s.close);
  return { url: s.base, seen, close: s.close };
}

async function newRemote(): Promise<Remote> {
  const remote = await bareRemote();
  closers.push(remote.cleanup);
  return remote;
}

/** HOME with a `store` credential helper, as many developer machines have. */
function storeHome(dir: string): string {
  const home = join(dir, "home");
  gitSync(dir, "init", "-q", home); // any existing directory; the repo is unused
  writeFileSync(join(home, ".gitconfig"), "[credential]\n\thelper = store\n");
  return home;
}

describe("https token remotes on loopback", () => {
  it("the token file's token clones and pushes; no store helper writes it to disk", async () => {
    const remote = await newRemote();
    const server = await gitServer(remote);
    const tokenFile = join(remote.dir, "kb.token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const home = storeHome(remote.dir);
    const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
    const dest = join(remote.dir, "b");
    await cloneKb(server.url, dest, { tokenFile, env });
    expect(server.seen).toContain(BASIC);
    const mount = await mountKb(
      {
        name: "kb",
        root: dest,
        allowArtifactWrite: false,
        gitAuthor: { name: "B", email: "b@test.invalid" },
        autocommit: true,
        sync: syncSettings({ tokenFile, env }),
      },
      { logger: silentLogger },
    );
    closers.push(() => closeMount(mount));
    const surface = surfaceForMount(mount, { logger: silentLogger });
    const res = await surface.callTool(
      "concept_write",
      { id: "over-http", frontmatter: { type: "note", title: "t" }, body: "x\n" },
      { principal: LOCAL_ADMIN, transport: "in-memory", requestId: "" },
    );
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(remoteLog(remote)[0]).toBe("concept_write: over-http");
    expect(existsSync(join(home, ".git-credentials"))).toBe(false);
  }, 60_000);

  it("a 302 to another loopback host is not followed; that host never sees the token", async () => {
    const remote = await newRemote();
    const other = await thief();
    const server = await gitServer(remote, other.url);
    const tokenFile = join(remote.dir, "kb.token");
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const env = { ...process.env, HOME: remote.dir, GIT_CONFIG_NOSYSTEM: "1" };
    await expect(cloneKb(server.url, join(remote.dir, "b"), { tokenFile, env })).rejects.toThrow(
      /clone failed/,
    );
    expect(server.seen.length).toBeGreaterThan(0);
    expect(other.seen.join("\n")).not.toContain(BASIC.slice(6));
    expect(other.seen.filter((h) => h !== "")).toEqual([]);
  }, 30_000);

  it("a token embedded in the remote URL: out of argv and .git/config, into the clone's helper", async () => {
    const remote = await newRemote();
    const server = await gitServer(remote);
    const home = storeHome(remote.dir);
    const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
    const withToken = server.url.replace("http://", `http://x-access-token:${TOKEN}@`);
    const dest = join(remote.dir, "b");
    await cloneKb(withToken, dest, { env });
    expect(server.seen).toContain(BASIC);
    expect(readFileSync(join(dest, ".git", "config"), "utf8")).not.toContain(TOKEN);
    const stored = join(dest, ".git", "cartographer", "remote.token");
    expect(readFileSync(stored, "utf8").trim()).toBe(TOKEN);
    expect(statSync(stored).mode & 0o077).toBe(0);
    expect(existsSync(join(home, ".git-credentials"))).toBe(false);
    // The clone syncs with the moved token (no token_dir).
    const mount = await mountKb(
      {
        name: "kb",
        root: dest,
        allowArtifactWrite: false,
        gitAuthor: { name: "B", email: "b@test.invalid" },
        autocommit: true,
        sync: syncSettings({ env }),
      },
      { logger: silentLogger },
    );
    closers.push(() => closeMount(mount));
    const res = await surfaceForMount(mount, { logger: silentLogger }).callTool(
      "concept_write",
      { id: "moved-token", frontmatter: { type: "note", title: "t" }, body: "x\n" },
      { principal: LOCAL_ADMIN, transport: "in-memory", requestId: "" },
    );
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(remoteLog(remote)[0]).toBe("concept_write: moved-token");
  }, 60_000);

  it("an origin that embeds a token (cloned by hand) is rewritten at open; the token is moved", async () => {
    const remote = await newRemote();
    const server = await gitServer(remote);
    const dest = join(remote.dir, "b");
    gitSync(remote.dir, "clone", "-q", remote.bare, dest);
    gitSync(dest, "remote", "set-url", "origin", server.url.replace("http://", `http://${TOKEN}@`));
    const lines: string[] = [];
    const logger = { ...silentLogger, warn: (m: string) => lines.push(m) };
    const env = { ...process.env, HOME: remote.dir, GIT_CONFIG_NOSYSTEM: "1" };
    const mount = await mountKb(
      {
        name: "kb",
        root: dest,
        allowArtifactWrite: false,
        gitAuthor: { name: "B", email: "b@test.invalid" },
        autocommit: true,
        sync: syncSettings({ env }),
      },
      { logger },
    );
    closers.push(() => closeMount(mount));
    expect(readFileSync(join(dest, ".git", "config"), "utf8")).not.toContain(TOKEN);
    expect(lines.join("\n")).toMatch(/embedded a credential/);
    expect(lines.join("\n")).not.toContain(TOKEN);
    const res = await surfaceForMount(mount, { logger }).callTool(
      "concept_write",
      { id: "rewritten", frontmatter: { type: "note", title: "t" }, body: "x\n" },
      { principal: LOCAL_ADMIN, transport: "in-memory", requestId: "" },
    );
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(remoteLog(remote)[0]).toBe("concept_write: rewritten");
  }, 60_000);

  it("an origin with a token set while the server runs: the token moves at the next sync", async () => {
    const remote = await newRemote();
    const server = await gitServer(remote);
    const dest = join(remote.dir, "b");
    gitSync(remote.dir, "clone", "-q", remote.bare, dest);
    gitSync(dest, "remote", "remove", "origin");
    const env = { ...process.env, HOME: remote.dir, GIT_CONFIG_NOSYSTEM: "1" };
    const mount = await mountKb(
      {
        name: "kb",
        root: dest,
        allowArtifactWrite: false,
        gitAuthor: { name: "B", email: "b@test.invalid" },
        autocommit: true,
        sync: syncSettings({ env }),
      },
      { logger: silentLogger },
    );
    closers.push(() => closeMount(mount));
    gitSync(dest, "remote", "add", "origin", server.url.replace("http://", `http://${TOKEN}@`));
    const res = await surfaceForMount(mount, { logger: silentLogger }).callTool(
      "concept_write",
      { id: "added-later", frontmatter: { type: "note", title: "t" }, body: "x\n" },
      { principal: LOCAL_ADMIN, transport: "in-memory", requestId: "" },
    );
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(remoteLog(remote)[0]).toBe("concept_write: added-later");
    expect(readFileSync(join(dest, ".git", "config"), "utf8")).not.toContain(TOKEN);
  }, 60_000);

  it("config: a token in kbs[].remote is warned about (never shown); autocommit off + sync is refused", () => {
    const dir = join(process.cwd(), "test");
    const file = (yaml: string) => {
      const path = join(dir, `.tmp-http-remote-${process.pid}.yaml`);
      writeFileSync(path, yaml);
      closers.push(async () => {
        if (existsSync(path)) (await import("node:fs")).rmSync(path);
      });
      return path;
    };
    const warned = resolveServerConfig(
      {
        config: file(
          `data: ./d\nkbs:\n  - remote: https://bot:${TOKEN}@git.example.com/team/wiki.git\n    name: wiki\n`,
        ),
      },
      {},
      dir,
    ).warnings.join("\n");
    expect(warned).toMatch(/embeds a credential/);
    expect(warned).not.toContain(TOKEN);
    expect(() =>
      resolveServerConfig(
        {
          config: file(
            "data: ./d\ngit: {autocommit: false}\nkbs:\n  - remote: https://git.example.com/team/wiki.git\n",
          ),
        },
        {},
        dir,
      ),
    ).toThrow(/git\.autocommit: false cannot be combined with remote sync/);
  });
});
