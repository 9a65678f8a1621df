import { existsSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { serveCommand } from "../../../src/cli/commands/serve.js";
import { CliExit, type CliIo } from "../../../src/cli/io.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-serve-");

function io(): CliIo {
  const cwd = sandbox();
  return {
    env: {},
    cwd,
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
  };
}

describe("serve refuses before it writes anything", () => {
  it("an unsafe bind creates no embedded starter KB", async () => {
    const x = io();
    await expect(serveCommand(x, { http: "0.0.0.0:0" })).rejects.toBeInstanceOf(CliExit);
    expect(existsSync(join(x.cwd, "cartographer-data"))).toBe(false);
  });

  it("an unsafe bind creates no KB named by --kb --init", async () => {
    const x = io();
    await expect(
      serveCommand(x, { http: "0.0.0.0:0", kb: ["fresh"], init: true }),
    ).rejects.toBeInstanceOf(CliExit);
    expect(existsSync(join(x.cwd, "fresh"))).toBe(false);
  });
});
