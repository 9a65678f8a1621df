/** The `metrics` block (metrics-keys.ts): off by default; every error names its key or variable. */
import { describe, expect, it } from "vitest";
import { resolveMetrics } from "../../../src/cli/config/metrics-keys.js";
import { settingsFrom } from "../../../src/cli/config/pick.js";
import { describeIssues, fileConfigSchema } from "../../../src/cli/config/schema.js";

const SECRET = "scrape-secret-42";

describe("metrics settings", () => {
  it("are off by default, with no token", () => {
    expect(resolveMetrics(settingsFrom({}), undefined)).toEqual({ enabled: false, token: null });
    expect(resolveMetrics(settingsFrom({}), {})).toEqual({ enabled: false, token: null });
  });

  it("metrics.enabled turns them on (loopback only without token_env); the variable wins", () => {
    expect(resolveMetrics(settingsFrom({}), { enabled: true })).toEqual({
      enabled: true,
      token: null,
    });
    expect(
      resolveMetrics(settingsFrom({ CARTOGRAPHER_METRICS: "false" }), { enabled: true }),
    ).toEqual({
      enabled: false,
      token: null,
    });
    expect(resolveMetrics(settingsFrom({ CARTOGRAPHER_METRICS: "true" }), undefined).enabled).toBe(
      true,
    );
  });

  it("a bad CARTOGRAPHER_METRICS is named", () => {
    expect(() =>
      resolveMetrics(settingsFrom({ CARTOGRAPHER_METRICS: "maybe" }), undefined),
    ).toThrow(/CARTOGRAPHER_METRICS: 'maybe' is not a boolean/);
  });

  it("token_env reads the token from the variable it names", () => {
    const env = { SCRAPE_TOKEN: SECRET };
    expect(resolveMetrics(settingsFrom(env), { enabled: true, token_env: "SCRAPE_TOKEN" })).toEqual(
      {
        enabled: true,
        token: SECRET,
      },
    );
  });

  it("an unset or malformed token variable is an error naming metrics.token_env, never the value", () => {
    expect(() =>
      resolveMetrics(settingsFrom({}), { enabled: true, token_env: "SCRAPE_TOKEN" }),
    ).toThrow(/^metrics\.token_env: the environment variable SCRAPE_TOKEN is not set/);
    let message = "";
    try {
      resolveMetrics(settingsFrom({ SCRAPE_TOKEN: `${SECRET} x` }), {
        enabled: true,
        token_env: "SCRAPE_TOKEN",
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^metrics\.token_env: the value of SCRAPE_TOKEN contains whitespace/);
    expect(message).not.toContain(SECRET);
  });

  it("an unknown key of the block names the nearest known one", () => {
    const input = { metrics: { enabeld: true } };
    const parsed = fileConfigSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    if (!parsed.success)
      expect(describeIssues(parsed.error, input)).toMatch(/^metrics: .*enabeld.*enabled/);
  });
});
