import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { serveCommand } from "../../src/cli/commands/serve.js";
import { CliExit, type CliIo } from "../../src/cli/io.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function io(): CliIo {
  const cwd = mkdtempSync(join(tmpdir(), "carto-serve-"));
  dirs.push(cwd);
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
