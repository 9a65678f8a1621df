/**
 * A real install, start, stop and uninstall through the user's systemd, where one runs
 * (`systemctl --user is-system-running` answers running or degraded) and no cartographer unit is
 * installed already (this test must not replace a person's service). Runs the built server (dist/).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { serviceCommand } from "../../../src/cli/commands/service.js";
import type { CliIo } from "../../../src/cli/io.js";
import { execRunner } from "../../../src/client/service/runner.js";
import { servicePaths } from "../../../src/client/service/spec.js";
import { VERSION } from "../../../src/version.js";
import { BIN } from "../../e2e/helpers.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-systemd-");

function userSystemd(): string | null {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  let state: string;
  try {
    state = execFileSync("systemctl", ["--user", "is-system-running"], { encoding: "utf8" }).trim();
  } catch (err) {
    state = String((err as { stdout?: string }).stdout ?? "").trim() || "systemctl failed";
  }
  if (state !== "running" && state !== "degraded")
    return `no user systemd here (systemctl --user is-system-running: ${state})`;
  if (existsSync(servicePaths(homedir()).systemdUnit))
    return "a cartographer user unit is already installed; not touching it";
  if (!existsSync(BIN)) return "dist/ is not built (npm run build)";
  return null;
}

describe("a real systemd user service", () => {
  it("install → running (0), stop → stopped (3), uninstall → not installed (4)", async (ctx) => {
    const why = userSystemd();
    if (why) return ctx.skip(why);
    const io: CliIo = {
      env: { HOME: homedir() },
      cwd: sandbox(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    };
    const deps = {
      host: {
        platform: process.platform,
        home: homedir(),
        uid: process.getuid?.() ?? 0,
        run: execRunner(),
      },
      node: process.execPath,
      bin: BIN,
      version: VERSION,
    };
    const http = `127.0.0.1:${40_000 + Math.floor(Math.random() * 20_000)}`;
    try {
      await serviceCommand(io, "install", { data: join(io.cwd, "data"), http }, deps);
      expect(await serviceCommand(io, "restart", { wait: true, timeout: "30" }, deps)).toBe(0);
      expect(await serviceCommand(io, "status", {}, deps)).toBe(0);
      await serviceCommand(io, "stop", {}, deps);
      expect(await serviceCommand(io, "status", {}, deps)).toBe(3);
    } finally {
      await serviceCommand(io, "uninstall", {}, deps);
    }
    expect(await serviceCommand(io, "status", {}, deps)).toBe(4);
  }, 90_000);
});
