/**
 * Console session limits from the YAML config (console-keys.ts), through the built binary over
 * real HTTP: a configured idle timeout really ends a session, and a bad value stops `serve` with
 * a message naming the key and the fix.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RawResponse, raw } from "../http/helpers.js";
import { hiddenField, sessionOf } from "../support/console-kb.js";
import { cleanEnv, GIT_ENV, runBin, startServer, tempDir } from "./helpers.js";

const TOKEN = "console-session-e2e-canary-5b7e";
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sandbox(yaml: string): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  writeFileSync(join(t.dir, "c.yaml"), yaml);
  return t.dir;
}

describe("console session limits (the built binary)", () => {
  it("a configured idle timeout ends a session that is not used", async () => {
    const dir = sandbox(
      `auth:\n  tokens:\n    - ${TOKEN}\nconsole:\n  session_idle_timeout: 2s\n  session_lifetime: 1m\n`,
    );
    const server = await startServer(["--http", "127.0.0.1:0", "--config", "c.yaml"], {
      cwd: dir,
      env: cleanEnv(GIT_ENV),
    });
    cleanups.push(() => server.stop());
    const port = Number(new URL(server.url).port);
    const get = (path: string, cookie?: string): Promise<RawResponse> =>
      raw(port, { method: "GET", path, headers: cookie ? { Cookie: cookie } : {} });

    const form = await get("/console/signin");
    expect(form.body).toContain("(2 seconds idle, 1 minute at most)");
    const signin = await raw(port, {
      method: "POST",
      path: "/console/signin",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: `http://127.0.0.1:${port}`,
      },
      body: new URLSearchParams({
        _csrf: hiddenField(form.body, "_csrf"),
        token: TOKEN,
        next: "/",
      }).toString(),
    });
    expect(signin.status).toBe(303);
    const cookie = sessionOf(signin);

    // Used every second, the session outlives its 2 s idle timeout.
    for (let i = 0; i < 3; i++) {
      await sleep(1000);
      expect((await get("/", cookie)).status).toBe(200);
    }
    // Left alone past it, the session is gone: the console asks to sign in again.
    await sleep(2500);
    const refused = await get("/", cookie);
    expect(refused.status).toBe(303);
    expect(refused.headers.location).toBe("/console/signin?next=%2F");
  }, 60_000);

  it("a bad value stops serve with the key and how to fix it", async () => {
    const serveWith = (yaml: string) =>
      runBin(["serve", "--http", "127.0.0.1:0", "--config", "c.yaml"], {
        cwd: sandbox(yaml),
        env: cleanEnv(GIT_ENV),
      });
    const bad = await serveWith("console:\n  session_idle_timeout: 90x\n");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(
      "console.session_idle_timeout: '90x' is not a session duration; use seconds (3600) or 90s, 30m, 8h, 7d",
    );
    const r = await serveWith("console:\n  session_idle_timeout: 2d\n  session_lifetime: 1d\n");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "console.session_idle_timeout (172800 s) is longer than console.session_lifetime (86400 s)",
    );
  }, 60_000);
});
