/**
 * `connect` to a loopback URL where nothing answers offers the user service: one hint line on
 * stderr without a terminal, a y/N question at one (declined here: nothing is installed).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { offerService } from "../../../src/cli/commands/service-offer.js";
import type { CliIo } from "../../../src/cli/io.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { runIn } from "./run-in.js";

const sandbox = useTempDirs("carto-offer-");

describe("connect with nothing on a loopback URL", () => {
  it("without a terminal: a hint line naming the install command", async () => {
    const home = sandbox();
    const r = await runIn(home, { HOME: home }, [
      "connect",
      "claude",
      "--server-url",
      "http://127.0.0.1:9",
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "hint: nothing answers at http://127.0.0.1:9; run the server as a user service with: cartographer service install --http 127.0.0.1:9",
    );
  });

  it("no hint for a server elsewhere", async () => {
    const home = sandbox();
    const io = {
      env: { HOME: home },
      cwd: home,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
    };
    let err = "";
    io.stderr.on("data", (d) => {
      err += d;
    });
    await offerService(io, { serverUrl: "http://192.0.2.1:39273" });
    expect(err).toBe("");
  });

  it("at a terminal: asks, and a 'n' installs nothing", async () => {
    const home = sandbox();
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
    const stderr = new PassThrough();
    let err = "";
    stderr.on("data", (d) => {
      err += d;
    });
    const io: CliIo = { env: { HOME: home }, cwd: home, stdout, stderr, stdin };
    const asked = offerService(io, { serverUrl: "http://localhost:9/mcp" });
    setTimeout(() => stdin.write("n\n"), 50);
    await asked;
    expect(err).toMatch(
      /Nothing answers at http:\/\/localhost:9\. Install and start the server as a user service .*\? \[y\/N\] /,
    );
    expect(existsSync(join(home, ".config", "systemd"))).toBe(false);
  });
});
