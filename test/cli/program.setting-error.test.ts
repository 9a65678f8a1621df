import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { resolveAuthEnabled } from "../../src/auth/tokens.js";
import { resolveServerConfig } from "../../src/cli/config/resolve.js";
import { runCli } from "../../src/cli/program.js";
import { isKbError, isSettingError } from "../../src/common/errors.js";
import { useTempDirs } from "../support/temp-dir.js";

const sandbox = useTempDirs("carto-setting-");

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("a bad setting is a SettingError, never a KbError", () => {
  it("server config resolution throws SettingError naming the setting", () => {
    const err = thrown(() =>
      resolveServerConfig({}, { CARTOGRAPHER_TOOLS_PROFILE: "lots" }, sandbox()),
    );
    expect(isSettingError(err)).toBe(true);
    expect(isKbError(err)).toBe(false);
    expect((err as Error).message).toMatch(/CARTOGRAPHER_TOOLS_PROFILE: 'lots'/);
  });

  it("auth with mode true and no tokens throws SettingError", () => {
    const err = thrown(() => resolveAuthEnabled(true, 0));
    expect(isSettingError(err)).toBe(true);
    expect(isKbError(err)).toBe(false);
  });

  it("the CLI prints it as `invalid_argument: <message>` and exits 2", async () => {
    const stderr = new PassThrough();
    let text = "";
    stderr.on("data", (c) => {
      text += String(c);
    });
    const code = await runCli(["serve"], {
      env: { CARTOGRAPHER_TOOLS_PROFILE: "lots" },
      cwd: sandbox(),
      stdout: new PassThrough(),
      stderr,
      stdin: new PassThrough(),
    });
    expect(code).toBe(2);
    expect(text).toMatch(/^cartographer: invalid_argument: CARTOGRAPHER_TOOLS_PROFILE: 'lots'/);
  });
});
