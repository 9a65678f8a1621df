/**
 * Go's `init` (docs/decisions.md "`init` turns only EMPTY subfolders"): `serve --data DIR --init`
 * and YAML `init: true` turn every empty subfolder of the data directory into a KB and mount it;
 * `--kb a,b --init` creates two KBs. Drives the BUILT binary (`npm run build` first), like
 * test/e2e.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  cleanEnv,
  GIT_ENV,
  type RunningServer,
  runBin,
  startServer,
  tempDir,
} from "../../e2e/helpers.js";

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

describe("serve --init", () => {
  it("--data DIR --init: every subfolder becomes a KB and is mounted; a non-empty one keeps its files", async () => {
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
    // Names keep the folder's case (as Go); other characters become `-`.
    expect(await mountedNames(server.url)).toEqual(["alpha", "Beta-Team", "kept", "papers"]);
    for (const kb of ["alpha", "Beta Team"]) {
      expect(existsSync(join(data, kb, "data", "index.md"))).toBe(true);
      const commits = execFileSync("git", ["rev-list", "--count", "HEAD"], {
        cwd: join(data, kb),
        encoding: "utf8",
      });
      expect(commits.trim()).toBe("1");
    }
    // Go writes the layout into a folder that is not a KB yet; the user's file stays as it was.
    expect(readFileSync(join(data, "papers", "draft.txt"), "utf8")).toBe("mine\n");
    expect(existsSync(join(data, "papers", "data", "index.md"))).toBe(true);
    expect(readdirSync(join(data, ".hidden"))).toEqual([]);
  });

  it("--kb DIR --init into a folder seeded with skills/ and mcp/: layout written, nothing overwritten, all committed", async () => {
    const dir = sandbox();
    const kb = join(dir, "seeded");
    mkdirSync(join(kb, "skills", "s1"), { recursive: true });
    mkdirSync(join(kb, "mcp"));
    mkdirSync(join(kb, "data"));
    writeFileSync(join(kb, "skills", "s1", "SKILL.md"), "---\nname: s1\ndescription: d\n---\nx\n");
    writeFileSync(join(kb, "mcp", "tools.json"), '{"type":"http","url":"https://t.example/mcp"}\n');
    writeFileSync(join(kb, "data", "log.md"), "# Log\n\n- my own entry\n");
    const server = await serve(["--kb", "seeded", "--init"], dir);
    expect(await mountedNames(server.url)).toEqual(["seeded"]);
    expect(readFileSync(join(kb, "data", "log.md"), "utf8")).toBe("# Log\n\n- my own entry\n");
    expect(readFileSync(join(kb, "data", "index.md"), "utf8")).toMatch(/^---\ntype: Index\n/);
    const tracked = execFileSync("git", ["ls-files"], { cwd: kb, encoding: "utf8" });
    expect(tracked.split("\n").filter(Boolean).sort()).toEqual([
      "data/index.md",
      "data/log.md",
      "mcp/tools.json",
      "skills/s1/SKILL.md",
    ]);
    const status = execFileSync("git", ["status", "--porcelain"], { cwd: kb, encoding: "utf8" });
    expect(status).toBe("");
  });

  it("kb create still refuses a non-empty folder", async () => {
    const dir = sandbox();
    mkdirSync(join(dir, "kbs", "busy"), { recursive: true });
    writeFileSync(join(dir, "kbs", "busy", "x.txt"), "x\n");
    const r = await runBin(["kb", "create", "busy", "--data", "kbs"], {
      cwd: dir,
      env: cleanEnv(GIT_ENV),
    });
    expect(r.code).not.toBe(0);
    expect(existsSync(join(dir, "kbs", "busy", "data"))).toBe(false);
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
