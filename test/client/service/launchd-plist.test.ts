/**
 * The launchd plist writer (pure): the plist parsed back as XML and checked field by field, with
 * paths that need escaping; `plutil -lint` where it is installed (macOS).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { plistEnvironment, renderLaunchdPlist } from "../../../src/client/service/launchd-plist.js";
import { serviceSpec } from "../../../src/client/service/spec.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { parsePlist } from "./parsers.js";

const sandbox = useTempDirs("carto-service-");
/** Spaces, quotes, a backslash, % and $: everything systemd and XML treat specially. */
const AWKWARD = `/opt/my "odd" dir\\x/100% $HOME & <more>'s`;

const spec = (home: string, extra: { data?: string; config?: string; http?: string } = {}) =>
  serviceSpec({ node: process.execPath, bin: join(home, "cli", "main.js"), home, ...extra });

describe("launchd plist", () => {
  it("parses as a plist with the label, arguments, environment and log, XML escaped", () => {
    const s = spec("/Users/u", { data: AWKWARD });
    const text = renderLaunchdPlist(s, "/Users/u/Library/Logs/cartographer/server.log");
    expect(parsePlist(text)).toEqual({
      Label: "com.cartographer.serve",
      ProgramArguments: [s.node, s.bin, "serve"],
      EnvironmentVariables: { CARTOGRAPHER_DATA: AWKWARD, CARTOGRAPHER_HTTP: "127.0.0.1:39273" },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      StandardOutPath: "/Users/u/Library/Logs/cartographer/server.log",
      StandardErrorPath: "/Users/u/Library/Logs/cartographer/server.log",
    });
    expect(plistEnvironment(text)).toEqual(Object.fromEntries(s.env));
  });

  it("plutil -lint accepts it", (ctx) => {
    const found = execFileSync("sh", ["-c", "command -v plutil || true"]).toString().trim();
    if (!found) return ctx.skip("plutil is not installed here (macOS only)");
    const file = join(sandbox(), "a.plist");
    writeFileSync(file, renderLaunchdPlist(spec("/Users/u", { data: AWKWARD }), "/tmp/l.log"));
    execFileSync("plutil", ["-lint", file]);
  });
});
