/**
 * Issue 14: `serve --data DIR --init` and YAML `init: true` turn every empty subfolder of the
 * data directory into a KB and mount it; `--kb a,b --init` creates two KBs. Drives the BUILT
 * binary (`npm run build` first), like test/e2e.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  cleanEnv,
  GIT_ENV,
  type RunningServer,
  runBin,
  startServer,
  tempDir,
} from "../e2e/helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function sandbox(): string {
  const t = tempDir("carto-init-");
  cleanups.push(t.cleanup);
  return t.dir;
}

async function serve(args: string[], cwd: string): Promise<RunningServer> {
  const server = await startServer([...args, "--http", "127.0.0.1:0"], {
    cwd,
    env: cleanEnv(GIT_ENV),
  });
  cleanups.push(() => server.stop());
  return server;
}

async function mountedNames(url: string): Promise<string[]> {
  const health = (await (await fetch(`${url}/health`)).json()) as { kbs: { name: string }[] };
  return health.kbs.map((k) => k.name);
}

describe("serve --init (issue 14)", () => {
  it("--data DIR --init: every empty subfolder becomes a KB and is mounted; nothing else is touched", async () => {
    const dir = sandbox();
    const data = join(dir, "kbs");
    mkdirSync(join(data, "alpha"), { recursive: true });
    mkdirSync(join(data, "Beta Team"));
    mkdirSync(join(data, "papers"));
    writeFileSync(join(data, "papers", "draft.txt"), "mine\n");
    mkdirSync(join(data, ".hidden"));
    const made = await runBin(["kb", "create", "kept", "--data", "kbs"], {
      cwd: dir,
      env: cleanEnv(GIT_ENV),
    });
    expect(made.code).toBe(0);

    const server = await serve(["--data", "kbs", "--init"], dir);
    expect(await mountedNames(server.url)).toEqual(["alpha", "beta-team", "kept"]);
    for (const kb of ["alpha", "Beta Team"]) {
      expect(existsSync(join(data, kb, "data", "index.md"))).toBe(true);
      const commits = execFileSync("git", ["rev-list", "--count", "HEAD"], {
        cwd: join(data, kb),
        encoding: "utf8",
      });
      expect(commits.trim()).toBe("1");
    }
    expect(readdirSync(join(data, "papers"))).toEqual(["draft.txt"]);
    expect(readdirSync(join(data, ".hidden"))).toEqual([]);
    expect(server.stderr()).toMatch(/init: not a KB and not empty, left untouched: papers/);
  });

  it("YAML init: true with a data directory that does not exist: created, served with no KB (Go's behaviour)", async () => {
    const dir = sandbox();
    writeFileSync(join(dir, "c.yaml"), "init: true\ndata: fresh\n");
    const server = await serve(["--config", "c.yaml"], dir);
    expect(existsSync(join(dir, "fresh"))).toBe(true);
    expect(await mountedNames(server.url)).toEqual([]);
    expect((await fetch(`${server.url}/ready`)).status).toBe(503);
    expect(server.stderr()).toMatch(/no KB is mounted/);
  });

  it("without init a missing data directory is still an error (exit 2), and nothing is created", async () => {
    const dir = sandbox();
    const r = await runBin(["serve", "--data", "nowhere", "--http", "127.0.0.1:0"], {
      cwd: dir,
      env: cleanEnv(GIT_ENV),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--data: 'nowhere'.*does not exist/);
    expect(existsSync(join(dir, "nowhere"))).toBe(false);
  });

  it("--kb a,b --init creates and mounts two KBs, never a folder named 'a,b'", async () => {
    const dir = sandbox();
    const server = await serve(["--kb", "one,two", "--init"], dir);
    expect(await mountedNames(server.url)).toEqual(["one", "two"]);
    expect(existsSync(join(dir, "one,two"))).toBe(false);
    expect(existsSync(join(dir, "two", "data", "index.md"))).toBe(true);
  });
});
