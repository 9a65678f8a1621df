/**
 * The service spec and the systemd unit writer (pure): the unit parsed back as INI, its Exec
 * words unquoted as systemd does, checked field by field with paths that need quoting;
 * `systemd-analyze verify` where it is installed.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serviceSpec } from "../../../src/client/service/spec.js";
import {
  renderSystemdUnit,
  unitEnvironment,
  unquoteWords,
} from "../../../src/client/service/systemd-unit.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { parseIni } from "./parsers.js";

const sandbox = useTempDirs("carto-service-");
/** Spaces, quotes, a backslash, % and $: everything systemd and XML treat specially. */
const AWKWARD = `/opt/my "odd" dir\\x/100% $HOME & <more>'s`;

const spec = (home: string, extra: { data?: string; config?: string; http?: string } = {}) =>
  serviceSpec({ node: process.execPath, bin: join(home, "cli", "main.js"), home, ...extra });

describe("serviceSpec", () => {
  it("defaults: ~/cartographer-data and 127.0.0.1:39273; --config is an argument and leaves data to the file", () => {
    expect(spec("/home/u")).toEqual({
      node: process.execPath,
      bin: "/home/u/cli/main.js",
      args: ["serve"],
      env: [
        ["CARTOGRAPHER_DATA", "/home/u/cartographer-data"],
        ["CARTOGRAPHER_HTTP", "127.0.0.1:39273"],
      ],
    });
    const withConfig = spec("/home/u", { config: "/etc/c.yaml", http: "127.0.0.1:4000" });
    expect(withConfig.args).toEqual(["serve", "--config", "/etc/c.yaml"]);
    expect(withConfig.env).toEqual([["CARTOGRAPHER_HTTP", "127.0.0.1:4000"]]);
  });

  it("refuses relative paths", () => {
    expect(() => spec("/home/u", { data: "rel/dir" })).toThrow(/data path must be absolute/);
  });
});

describe("systemd unit", () => {
  it("parses back as INI with the spec's command and environment, whatever the paths hold", () => {
    const s = spec("/home/u", { data: AWKWARD, config: `${AWKWARD}.yaml` });
    const unit = parseIni(renderSystemdUnit(s));
    expect(unit.Unit?.Description).toEqual(["Cartographer MCP server"]);
    expect(unit.Install?.WantedBy).toEqual(["default.target"]);
    expect(unit.Service?.Restart).toEqual(["on-failure"]);
    const exec = unquoteWords(unit.Service?.ExecStart?.[0] ?? "").map((w) =>
      w.replace(/\$\$/g, "$"),
    );
    expect(exec).toEqual([s.node, s.bin, ...s.args]);
    expect(unitEnvironment(renderSystemdUnit(s))).toEqual(Object.fromEntries(s.env));
  });

  it("doubles % everywhere and $ in ExecStart only; refuses a newline", () => {
    const text = renderSystemdUnit(spec("/home/u", { data: "/d/100%", config: "/c/$X" }));
    expect(text).toContain('"/c/$$X"');
    expect(text).toContain('"CARTOGRAPHER_DATA=/d/100%%"');
    expect(() => renderSystemdUnit(spec("/home/u", { data: "/a\nb" }))).toThrow(/newline/);
  });

  it("systemd-analyze verify accepts it", (ctx) => {
    const found = execFileSync("sh", ["-c", "command -v systemd-analyze || true"])
      .toString()
      .trim();
    if (!found) return ctx.skip("systemd-analyze is not installed here");
    const home = sandbox();
    const s = spec(home, { data: join(home, "data dir") });
    mkdirSync(join(home, "cli"));
    writeFileSync(s.bin, ""); // verify checks that the Exec binary and its paths exist
    const unit = join(home, "cartographer.service");
    writeFileSync(unit, renderSystemdUnit(s));
    // System mode: --user needs a running user manager, which this check does not.
    const out = execFileSync("systemd-analyze", ["verify", unit], {
      encoding: "utf8",
      stdio: "pipe",
    });
    expect(out).toBe("");
  });
});
