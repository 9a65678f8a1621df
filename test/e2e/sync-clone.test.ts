/**
 * Remote KBs from the built binary (issue 12): `cartographer kb clone URL` clones into
 * <data>/<name>, refuses an existing folder; `serve` clones CARTOGRAPHER_KB_REMOTES into the
 * data directory and serves them; a clone that fails leaves that KB unavailable, never fatal.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bareRemote, type Remote } from "../sync/helpers.js";
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
});
