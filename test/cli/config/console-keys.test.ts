/** The `console` block (console-keys.ts): session limits, each bad value named with its fix. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSessionDuration, resolveConsole } from "../../../src/cli/config/console-keys.js";
import { settingsFrom } from "../../../src/cli/config/pick.js";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-console-keys-");

function withConfig(yaml: string): string {
  const d = sandbox();
  writeFileSync(join(d, "c.yaml"), yaml);
  return d;
}

const HOUR = 3_600_000;

describe("console session limits", () => {
  it("default to 8 h idle and 24 h in all", () => {
    const cwd = withConfig("{}\n");
    expect(resolveServerConfig({ config: "c.yaml" }, {}, cwd).console).toEqual({
      sessionIdleMs: 8 * HOUR,
      sessionLifetimeMs: 24 * HOUR,
    });
  });

  it("are read from YAML (seconds or a duration), the variable winning", () => {
    const cwd = withConfig("console:\n  session_idle_timeout: 30m\n  session_lifetime: 7200\n");
    expect(resolveServerConfig({ config: "c.yaml" }, {}, cwd).console).toEqual({
      sessionIdleMs: 30 * 60_000,
      sessionLifetimeMs: 2 * HOUR,
    });
    const env = { CARTOGRAPHER_CONSOLE_SESSION_IDLE_TIMEOUT: "90s" };
    expect(resolveServerConfig({ config: "c.yaml" }, env, cwd).console.sessionIdleMs).toBe(90_000);
    expect(
      resolveConsole(settingsFrom({ CARTOGRAPHER_CONSOLE_SESSION_LIFETIME: "2d" }), undefined),
    ).toEqual({ sessionIdleMs: 8 * HOUR, sessionLifetimeMs: 48 * HOUR });
  });

  it("refuse a malformed or out-of-bounds value, naming the key and the fix", () => {
    const bad = (yaml: string) => () =>
      resolveServerConfig({ config: "c.yaml" }, {}, withConfig(yaml));
    expect(bad("console:\n  session_idle_timeout: soon\n")).toThrow(
      "console.session_idle_timeout: 'soon' is not a session duration; use seconds (3600) or 90s, 30m, 8h, 7d, from 1 s up to 7 days",
    );
    expect(bad("console:\n  session_idle_timeout: 0\n")).toThrow(
      /console\.session_idle_timeout: '0' is not a session duration/,
    );
    expect(bad("console:\n  session_idle_timeout: -5\n")).toThrow(
      /console\.session_idle_timeout: '-5'/,
    );
    expect(bad("console:\n  session_lifetime: 31d\n")).toThrow(
      /console\.session_lifetime: '31d' is not a session duration; .* up to 30 days/,
    );
    expect(bad("console:\n  session_idle_timeout: 8d\n")).toThrow(/up to 7 days/);
    expect(bad("console:\n  session_idle_timeout: 2h\n  session_lifetime: 1h\n")).toThrow(
      "console.session_idle_timeout (7200 s) is longer than console.session_lifetime (3600 s): a session ends at its lifetime anyway; lower the idle timeout or raise the lifetime",
    );
    expect(bad("console:\n  session_idle: 1h\n")).toThrow(/console: unknown key `session_idle`/);
    expect(() =>
      resolveServerConfig(
        {},
        { CARTOGRAPHER_CONSOLE_SESSION_LIFETIME: "forever" },
        withConfig("{}\n"),
      ),
    ).toThrow(/CARTOGRAPHER_CONSOLE_SESSION_LIFETIME: 'forever' is not a session duration/);
  });

  it("parse seconds, minutes, hours and days", () => {
    const max = 30 * 86_400;
    expect(parseSessionDuration(1, "k", max)).toBe(1000);
    expect(parseSessionDuration("1.5h", "k", max)).toBe(1.5 * HOUR);
    expect(parseSessionDuration(" 7d ", "k", max)).toBe(7 * 24 * HOUR);
    expect(() => parseSessionDuration("0.5", "k", max)).toThrow(/from 1 s/);
    expect(() => parseSessionDuration("1w", "k", max)).toThrow(/k: '1w'/);
  });
});
