import { describe, expect, it } from "vitest";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-go-flags-");

describe("Go's serve flags (--git-sync, --git-autocommit, --ollama)", () => {
  it("bare flags mean true, =false turns the setting off, and flags win over the environment", () => {
    const cwd = sandbox();
    const off = resolveServerConfig({ gitSync: "false", gitAutocommit: "false" }, {}, cwd);
    expect(off.sync.enabled).toBe(false);
    expect(off.autocommit).toBe(false);
    const bare = resolveServerConfig(
      { gitSync: true, gitAutocommit: true },
      { CARTOGRAPHER_GIT_SYNC: "false", CARTOGRAPHER_GIT_AUTOCOMMIT: "false" },
      cwd,
    );
    expect(bare.sync.enabled).toBe(true);
    expect(bare.autocommit).toBe(true);
  });

  it("--ollama turns on Ollama embeddings like CARTOGRAPHER_OLLAMA", () => {
    const cwd = sandbox();
    expect(resolveServerConfig({}, {}, cwd).embeddings).toBeNull();
    const c = resolveServerConfig({ ollama: "http://127.0.0.1:11434" }, {}, cwd);
    expect(c.embeddings?.provider).toBe("ollama");
    expect(c.embeddings?.url).toContain("127.0.0.1:11434");
  });

  it("a bad value is refused naming the flag", () => {
    expect(() => resolveServerConfig({ gitSync: "maybe" }, {}, sandbox())).toThrow(
      /--git-sync: 'maybe' is not a boolean/,
    );
  });
});
