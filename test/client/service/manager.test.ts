/**
 * `cartographer service …` with the runner injected: the exact systemctl/launchctl command
 * lines, the files written under a temp home, the status exit codes (0 running, 3 stopped,
 * 4 not installed) and `restart --wait` returning only once /health shows the new version.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { type ServiceDeps, serviceCommand } from "../../../src/cli/commands/service.js";
import { CliExit, type CliIo } from "../../../src/cli/io.js";
import type { RunResult } from "../../../src/client/service/runner.js";
import { unitEnvironment } from "../../../src/client/service/systemd-unit.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-service-");

interface Fake {
  io: CliIo;
  out: () => string;
  calls: string[];
  deps: ServiceDeps;
}

/** A temp home, a runner that records each call and answers from `answer`, a fake /health. */
function fake(
  platform: NodeJS.Platform,
  answer: (line: string) => Partial<RunResult> = () => ({}),
  versions: string[] = [],
): Fake {
  const home = sandbox();
  const calls: string[] = [];
  let out = "";
  const stdout = new PassThrough();
  stdout.on("data", (d) => {
    out += d;
  });
  const health = [...versions];
  const fetchFn = (async () => {
    const version = health.length > 1 ? health.shift() : health[0];
    if (version === undefined)
      throw Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    return new Response(JSON.stringify({ status: "ok", version, ready: true, kbs: [] }));
  }) as typeof fetch;
  return {
    io: {
      env: { HOME: home },
      cwd: home,
      stdout,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    },
    out: () => out,
    calls,
    deps: {
      host: {
        platform,
        home,
        uid: 501,
        run: async (program, args) => {
          const line = [program, ...args].join(" ");
          calls.push(line);
          return { code: 0, stdout: "", stderr: "", ...answer(line) };
        },
      },
      node: "/usr/bin/node",
      bin: "/opt/carto/dist/cli/main.js",
      version: "9.9.9",
      fetchFn,
    },
  };
}

const run = (f: Fake, action: string, flags = {}) => serviceCommand(f.io, action, flags, f.deps);

describe("service on Linux (systemd user unit)", () => {
  it("install writes the unit, reloads, enables and (re)starts it; the data directory is made", async () => {
    const f = fake("linux");
    expect(await run(f, "install", { data: "kbs", http: "127.0.0.1:4100" })).toBe(0);
    const unit = join(f.deps.host.home, ".config/systemd/user/cartographer.service");
    expect(unitEnvironment(readFileSync(unit, "utf8"))).toEqual({
      CARTOGRAPHER_DATA: join(f.deps.host.home, "kbs"),
      CARTOGRAPHER_HTTP: "127.0.0.1:4100",
    });
    expect(existsSync(join(f.deps.host.home, "kbs"))).toBe(true);
    expect(f.calls).toEqual([
      "systemctl --user daemon-reload",
      "systemctl --user enable cartographer.service",
      "systemctl --user restart cartographer.service",
    ]);
    expect(f.out()).toContain("listening on http://127.0.0.1:4100");
  });

  it("start, stop, restart and uninstall; before install they say how to install", async () => {
    const f = fake("linux");
    await expect(run(f, "start")).rejects.toThrow(
      /no service is installed .*run cartographer service install/,
    );
    await run(f, "install");
    f.calls.length = 0;
    for (const action of ["start", "stop", "restart", "uninstall"])
      expect(await run(f, action)).toBe(0);
    expect(f.calls).toEqual([
      "systemctl --user start cartographer.service",
      "systemctl --user stop cartographer.service",
      "systemctl --user restart cartographer.service",
      "systemctl --user disable --now cartographer.service",
      "systemctl --user daemon-reload",
    ]);
    expect(existsSync(join(f.deps.host.home, ".config/systemd/user/cartographer.service"))).toBe(
      false,
    );
  });

  it("status: 4 not installed, 3 installed but stopped, 0 running (with --json)", async () => {
    let active = "inactive";
    const f = fake(
      "linux",
      (line) =>
        line.includes("is-active")
          ? { stdout: `${active}\n`, code: active === "active" ? 0 : 3 }
          : {},
      ["9.9.9"],
    );
    expect(await run(f, "status")).toBe(4);
    expect(f.out()).toContain("installed: false");
    await run(f, "install");
    expect(await run(f, "status")).toBe(3);
    active = "active";
    const before = f.out().length;
    expect(await run(f, "status", { json: true })).toBe(0);
    expect(JSON.parse(f.out().slice(before))).toMatchObject({
      state: "running",
      installed: true,
      running: true,
      healthy: true,
      http: "127.0.0.1:39273",
      version: "9.9.9",
    });
  });

  it("a failing systemctl is exit 2 naming the command and what it said", async () => {
    const f = fake("linux", (line) =>
      line.endsWith("daemon-reload")
        ? { code: 1, stderr: "Failed to connect to bus: No medium found\n" }
        : {},
    );
    const err = await run(f, "install").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliExit);
    expect((err as CliExit).exitCode).toBe(2);
    expect((err as CliExit).message).toBe(
      "systemctl --user daemon-reload failed (exit 1): Failed to connect to bus: No medium found",
    );
  });

  it("restart --wait returns once /health reports the new version, and fails at the timeout otherwise", async () => {
    const f = fake("linux", () => ({}), ["9.9.8", "9.9.8", "9.9.9"]);
    await run(f, "install", { http: "127.0.0.1:4200" });
    expect(await run(f, "restart", { wait: true, timeout: "5" })).toBe(0);
    expect(f.out()).toContain("http://127.0.0.1:4200 serves version 9.9.9");
    const stale = fake("linux", () => ({}), ["1.0.0"]);
    await run(stale, "install");
    await expect(run(stale, "restart", { wait: true, timeout: "0.6" })).rejects.toThrow(
      /did not report version 9\.9\.9 within 0\.6 s \(it reports version 1\.0\.0\)/,
    );
  });

  it("a bad --http is refused before anything is written", async () => {
    const f = fake("linux");
    await expect(run(f, "install", { http: "127.0.0.1:0" })).rejects.toThrow(
      /--http: a service needs a fixed port/,
    );
    await expect(run(f, "install", { http: "a:b:c" })).rejects.toThrow(
      /--http: 'a:b:c' is not an address/,
    );
    expect(f.calls).toEqual([]);
  });
});

describe("service on macOS (launchd agent)", () => {
  it("install boots the old agent out (best effort) and bootstraps the plist", async () => {
    const f = fake("darwin", (line) => (line.includes("bootout") ? { code: 3 } : {}));
    expect(await run(f, "install")).toBe(0);
    expect(f.calls).toEqual([
      "launchctl bootout gui/501/com.cartographer.serve",
      `launchctl bootstrap gui/501 ${join(f.deps.host.home, "Library/LaunchAgents/com.cartographer.serve.plist")}`,
    ]);
  });

  it("stop unloads a loaded agent; restart kickstarts it; status reads launchctl print", async () => {
    const f = fake(
      "darwin",
      (line) => (line.includes("print") ? { stdout: "\tstate = running\n" } : {}),
      ["9.9.9"],
    );
    await run(f, "install");
    f.calls.length = 0;
    await run(f, "stop");
    await run(f, "restart");
    expect(await run(f, "status")).toBe(0);
    expect(f.calls).toEqual([
      "launchctl print gui/501/com.cartographer.serve",
      "launchctl bootout gui/501/com.cartographer.serve",
      "launchctl print gui/501/com.cartographer.serve",
      "launchctl kickstart -k gui/501/com.cartographer.serve",
      "launchctl print gui/501/com.cartographer.serve",
    ]);
  });
});

describe("elsewhere", () => {
  it("says which platforms are supported and what to do instead", async () => {
    await expect(run(fake("win32"), "status")).rejects.toThrow(
      /supports Linux \(systemd\) and macOS \(launchd\), not win32/,
    );
  });
});
