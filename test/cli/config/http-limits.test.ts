import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-limits-");

function withConfig(yaml: string): string {
  const d = sandbox();
  writeFileSync(join(d, "c.yaml"), yaml);
  return d;
}

describe("HTTP limits config", () => {
  it("defaults: 256 connections, 10 s headers, 30 s request", () => {
    const cwd = withConfig("{}\n");
    expect(resolveServerConfig({}, {}, cwd).httpLimits).toEqual({
      maxConnections: 256,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
    });
  });

  it("YAML < env < flag, each named in its error", () => {
    const cwd = withConfig(
      "max_connections: 10\nheaders_timeout_seconds: 2\nrequest_timeout_seconds: 5\n",
    );
    const yaml = resolveServerConfig({ config: "c.yaml" }, {}, cwd).httpLimits;
    expect(yaml).toEqual({ maxConnections: 10, headersTimeoutMs: 2000, requestTimeoutMs: 5000 });
    const env = { CARTOGRAPHER_MAX_CONNECTIONS: "20", CARTOGRAPHER_REQUEST_TIMEOUT_SECONDS: "7" };
    expect(resolveServerConfig({ config: "c.yaml" }, env, cwd).httpLimits).toMatchObject({
      maxConnections: 20,
      requestTimeoutMs: 7000,
    });
    expect(
      resolveServerConfig({ config: "c.yaml", maxConnections: "30" }, env, cwd).httpLimits
        .maxConnections,
    ).toBe(30);
    expect(() => resolveServerConfig({ config: "c.yaml", maxConnections: "0" }, {}, cwd)).toThrow(
      /--max-connections: '0' is not a connection count/,
    );
    expect(() =>
      resolveServerConfig({}, { CARTOGRAPHER_REQUEST_TIMEOUT_SECONDS: "x" }, cwd),
    ).toThrow(/CARTOGRAPHER_REQUEST_TIMEOUT_SECONDS: 'x'/);
    const bad = withConfig("max_connections: -1\n");
    expect(() => resolveServerConfig({ config: "c.yaml" }, {}, bad)).toThrow(/max_connections/);
    const inverted = withConfig("headers_timeout_seconds: 40\n");
    expect(() => resolveServerConfig({ config: "c.yaml" }, {}, inverted)).toThrow(
      /request_timeout_seconds \(30\) is shorter than headers_timeout_seconds \(40\)/,
    );
  });
});
