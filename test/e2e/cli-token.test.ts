import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../support/temp-dir.js";
import { cleanEnv, runBin } from "./helpers.js";

const sandbox = useTempDirs("carto-e2e-");

describe("cartographer token new", () => {
  it("prints a fresh token and the principal id derived from its digest", async () => {
    const dir = sandbox();
    const a = await runBin(["token", "new", "--json"], { cwd: dir });
    const b = await runBin(["token", "new", "--json"], { cwd: dir });
    expect(a.code).toBe(0);
    const first = JSON.parse(a.stdout) as { token: string; principal_id: string };
    const second = JSON.parse(b.stdout) as { token: string; principal_id: string };
    expect(first.token).not.toBe(second.token);
    expect(first.token.length).toBeGreaterThanOrEqual(32);
    const digest = createHash("sha256").update(first.token).digest("hex");
    expect(first.principal_id).toBe(`tok-${digest.slice(0, 8)}`);
    expect(a.stderr).toBe("");
  });

  it("a malformed --tokens value fails at startup naming the setting, never the token", async () => {
    const dir = sandbox();
    const made = JSON.parse((await runBin(["token", "new", "--json"], { cwd: dir })).stdout) as {
      token: string;
    };
    const env = cleanEnv({ CARTOGRAPHER_TOKENS: made.token });
    // A bad tokens value fails fast, naming the variable and never the token.
    const bad = await runBin(
      ["serve", "--http", "127.0.0.1:0", "--tokens", `${made.token}|kb:x:write`],
      { cwd: dir, env },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain(made.token);
    expect(bad.stderr).toMatch(/tokens/i);
  });
});

describe("serve refuses an unsafe bind", () => {
  it("will not serve a non-loopback address without auth unless --insecure-no-auth", async () => {
    const dir = sandbox();
    const res = await runBin(["serve", "--http", "0.0.0.0:0"], { cwd: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/refusing to serve 0\.0\.0\.0 without auth.*--insecure-no-auth/);
  });

  it("auth=true without any token fails at startup with exit 2", async () => {
    const dir = sandbox();
    const res = await runBin(["serve", "--http", "127.0.0.1:0", "--auth", "true"], { cwd: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/no tokens are configured/);
  });
});

describe("serve on a port that is taken", () => {
  it("exits 1 naming the address and how to choose another", async () => {
    const { createServer } = await import("node:net");
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const dir = sandbox();
      const res = await runBin(["serve", "--http", `127.0.0.1:${port}`], { cwd: dir });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`127.0.0.1:${port} is already in use`);
      expect(res.stderr).toMatch(/--http HOST:PORT/);
    } finally {
      blocker.close();
    }
  });
});
