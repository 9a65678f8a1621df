/**
 * `init` never initializes the folder a remote KB is cloned into (Go clones first): an empty
 * folder waiting for its clone stays empty, and a named remote KB is not created empty.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { initForServe } from "../../../src/cli/commands/serve-init.js";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import type { ServerConfig } from "../../../src/cli/config/types.js";
import { memoryLogger } from "../../../src/logger.js";
import { useTempDirs } from "../../support/temp-dir.js";

const newDir = useTempDirs("carto-init-remote-");

describe("init and remote KBs", () => {
  it("leaves a remote KB's clone folder alone and initializes the other empty folders", async () => {
    const cwd = newDir();
    mkdirSync(join(cwd, "data", "wiki"), { recursive: true });
    mkdirSync(join(cwd, "data", "notes"));
    const base = resolveServerConfig({ data: "data", init: true, http: ":0" }, {}, cwd);
    const config = {
      ...base,
      kbs: [
        {
          name: "wiki",
          root: join(cwd, "data", "wiki"),
          allowArtifactWrite: false,
          source: "t",
          remote: "https://example.com/wiki.git",
        },
        {
          name: "far",
          root: join(cwd, "elsewhere"),
          allowArtifactWrite: false,
          source: "t",
          remote: "https://example.com/far.git",
        },
      ],
    } as unknown as ServerConfig;
    const logger = memoryLogger();
    expect(await initForServe(config, logger)).toBe(1);
    expect(readdirSync(join(cwd, "data", "wiki"))).toEqual([]);
    expect(existsSync(join(cwd, "elsewhere"))).toBe(false);
    expect(existsSync(join(cwd, "data", "notes", "data", "index.md"))).toBe(true);
  });
});
