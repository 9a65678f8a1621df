import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { parseHttpAddress } from "../../../src/cli/config/values.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-config-");

/** A folder that looks like a KB (data/index.md) — enough for discovery. */
function fakeKb(root: string): string {
  mkdirSync(join(root, "data"), { recursive: true });
  writeFileSync(join(root, "data", "index.md"), "---\ntype: Index\n---\n");
  return root;
}

describe("server config resolution", () => {
  it("defaults to the embedded data dir over HTTP on 127.0.0.1:39273", () => {
    const cwd = sandbox();
    const c = resolveServerConfig({}, {}, cwd);
    expect(c.embeddedDefault).toBe(true);
    expect(c.transport).toBe("http");
    expect(c.http).toEqual({ host: "127.0.0.1", port: 39273 });
    expect(c.dataDir).toBe(join(cwd, "cartographer-data"));
    expect(c.toolsProfile).toBe("agent");
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("applies flags over env over YAML", () => {
    const cwd = sandbox();
    writeFileSync(join(cwd, "c.yaml"), "http: 127.0.0.1:1111\ntools:\n  profile: full\n");
    const yamlOnly = resolveServerConfig({ config: "c.yaml" }, {}, cwd);
    expect(yamlOnly.http.port).toBe(1111);
    expect(yamlOnly.toolsProfile).toBe("full");
    const envWins = resolveServerConfig(
      { config: "c.yaml" },
      { CARTOGRAPHER_HTTP: ":2222", CARTOGRAPHER_TOOLS_PROFILE: "agent" },
      cwd,
    );
    expect(envWins.http.port).toBe(2222);
    expect(envWins.toolsProfile).toBe("agent");
    const flagWins = resolveServerConfig(
      { config: "c.yaml", http: "127.0.0.1:3333" },
      { CARTOGRAPHER_HTTP: ":2222" },
      cwd,
    );
    expect(flagWins.http.port).toBe(3333);
  });

  it("names the key and the bad value", () => {
    const cwd = sandbox();
    writeFileSync(
      join(cwd, "c.yaml"),
      "tools:\n  profile: everything\nkbs:\n  - path: 3\nbogus: 1\n",
    );
    expect(() => resolveServerConfig({ config: "c.yaml" }, {}, cwd)).toThrow(
      /tools\.profile.*kbs\.0\.path|kbs\.0\.path.*tools\.profile/s,
    );
    expect(() => resolveServerConfig({ config: "c.yaml" }, {}, cwd)).toThrow(/bogus/);
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_TOOLS_PROFILE: "lots" }, cwd)).toThrow(
      /CARTOGRAPHER_TOOLS_PROFILE: 'lots'/,
    );
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_GIT_AUTOCOMMIT: "maybe" }, cwd)).toThrow(
      /CARTOGRAPHER_GIT_AUTOCOMMIT: 'maybe'/,
    );
    expect(() => resolveServerConfig({ http: "host:port" }, {}, cwd)).toThrow(
      /--http: 'host:port'/,
    );
    expect(() => resolveServerConfig({ config: "missing.yaml" }, {}, cwd)).toThrow(
      /missing\.yaml.*ENOENT/,
    );
  });

  it("a YAML error names the bad value next to its key", () => {
    const cwd = sandbox();
    writeFileSync(join(cwd, "c.yaml"), "git:\n  autocommit: maybe\nmax_body_bytes: -5\n");
    expect(() => resolveServerConfig({ config: "c.yaml" }, {}, cwd)).toThrow(
      /git\.autocommit: .*got "maybe"/,
    );
    expect(() => resolveServerConfig({ config: "c.yaml" }, {}, cwd)).toThrow(
      /max_body_bytes: .*got -5/,
    );
  });

  it("a data dir that is missing or not a directory is an error naming its setting", () => {
    const cwd = sandbox();
    writeFileSync(join(cwd, "afile"), "x");
    expect(() => resolveServerConfig({ data: "nowhere" }, {}, cwd)).toThrow(
      /--data: 'nowhere'.*does not exist/,
    );
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_DATA: "afile" }, cwd)).toThrow(
      /CARTOGRAPHER_DATA: 'afile'.*not a directory/,
    );
    writeFileSync(join(cwd, "c.yaml"), "data: nowhere\n");
    expect(() => resolveServerConfig({ config: "c.yaml" }, {}, cwd)).toThrow(
      /^data: 'nowhere'.*does not exist/,
    );
  });

  it("mounts every KB of the data dir and the listed KBs, normalizing names", () => {
    const cwd = sandbox();
    fakeKb(join(cwd, "data", "Team Wiki"));
    fakeKb(join(cwd, "data", "notes"));
    mkdirSync(join(cwd, "data", "not-a-kb"));
    symlinkSync(join(cwd, "gone"), join(cwd, "data", "dangling"));
    fakeKb(join(cwd, "other"));
    writeFileSync(
      join(cwd, "c.yaml"),
      "data: data\nkbs:\n  - path: other\n    name: extra\n    allow_artifact_write: true\n",
    );
    const c = resolveServerConfig({ config: "c.yaml" }, {}, cwd);
    expect(c.kbs.map((k) => [k.name, k.allowArtifactWrite])).toEqual([
      ["extra", true],
      ["notes", false],
      ["Team-Wiki", false],
    ]);
    expect(c.embeddedDefault).toBe(false);
  });

  it("skips a duplicate name and a KB named routed, with one warning each", () => {
    const cwd = sandbox();
    fakeKb(join(cwd, "a", "notes"));
    fakeKb(join(cwd, "b", "notes"));
    fakeKb(join(cwd, "routed"));
    const c = resolveServerConfig({ kb: ["a/notes", "b/notes", "routed"] }, {}, cwd);
    expect(c.kbs.map((k) => k.root)).toEqual([join(cwd, "a", "notes")]);
    expect(c.warnings.filter((w) => w.includes("used twice"))).toHaveLength(1);
    expect(c.warnings.filter((w) => w.includes("'routed'"))).toHaveLength(1);
    expect(c.transport).toBe("stdio");
  });

  it("accepts the deprecated routing keys with one warning each, never failing", () => {
    const cwd = sandbox();
    fakeKb(join(cwd, "kb1"));
    writeFileSync(
      join(cwd, "c.yaml"),
      "mcp:\n  mount_mode: routed\n  tool_prefix_mode: kb-name\nkbs:\n  - path: kb1\n    tool_prefix: k1\n",
    );
    const c = resolveServerConfig(
      { config: "c.yaml", mountMode: "per-kb" },
      { CARTOGRAPHER_MCP_MOUNT_MODE: "routed", CARTOGRAPHER_MCP_TOOL_PREFIX_MODE: "kb-name" },
      cwd,
    );
    const deprecated = c.warnings.filter((w) => w.includes("deprecated"));
    expect(deprecated).toHaveLength(6);
    for (const key of [
      "mcp.mount_mode",
      "CARTOGRAPHER_MCP_MOUNT_MODE",
      "--mount-mode",
      "mcp.tool_prefix_mode",
      "CARTOGRAPHER_MCP_TOOL_PREFIX_MODE",
      "kbs.0.tool_prefix",
    ]) {
      expect(deprecated.filter((w) => w.includes(key))).toHaveLength(1);
    }
  });

  it("reads CARTOGRAPHER_KB as a comma list and chooses stdio for it", () => {
    const cwd = sandbox();
    fakeKb(join(cwd, "x"));
    fakeKb(join(cwd, "y"));
    const c = resolveServerConfig({}, { CARTOGRAPHER_KB: "x, y" }, cwd);
    expect(c.kbs.map((k) => k.name)).toEqual(["x", "y"]);
    expect(c.transport).toBe("stdio");
    expect(resolveServerConfig({ http: ":0" }, { CARTOGRAPHER_KB: "x" }, cwd).transport).toBe(
      "http",
    );
    expect(resolveServerConfig({ stdio: true }, {}, cwd).transport).toBe("stdio");
  });

  it("parses every address form", () => {
    expect(parseHttpAddress("0.0.0.0:80", "http")).toEqual({ host: "0.0.0.0", port: 80 });
    expect(parseHttpAddress(":8080", "http")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseHttpAddress(9000, "http")).toEqual({ host: "127.0.0.1", port: 9000 });
    expect(parseHttpAddress("[::1]:7000", "http")).toEqual({ host: "::1", port: 7000 });
    expect(() => parseHttpAddress("1.2.3.4:99999", "http")).toThrow(/http: '1\.2\.3\.4:99999'/);
  });
  it("resolves the public URL from flag, env or YAML, and names a bad one", () => {
    const cwd = sandbox();
    writeFileSync(join(cwd, "c.yaml"), "public_url: https://kb.example.com/\n");
    expect(resolveServerConfig({ config: "c.yaml" }, {}, cwd).publicUrl).toBe(
      "https://kb.example.com",
    );
    expect(
      resolveServerConfig(
        { config: "c.yaml" },
        { CARTOGRAPHER_PUBLIC_URL: "https://env.example" },
        cwd,
      ).publicUrl,
    ).toBe("https://env.example");
    expect(
      resolveServerConfig({ config: "c.yaml", publicUrl: "http://flag.example:8080" }, {}, cwd)
        .publicUrl,
    ).toBe("http://flag.example:8080");
    expect(resolveServerConfig({}, {}, cwd).publicUrl).toBeNull();
    expect(() => resolveServerConfig({ publicUrl: "kb.example.com" }, {}, cwd)).toThrow(
      /--public-url: 'kb\.example\.com' is not a URL/,
    );
    expect(() => resolveServerConfig({}, { CARTOGRAPHER_PUBLIC_URL: "ftp://x" }, cwd)).toThrow(
      /CARTOGRAPHER_PUBLIC_URL: 'ftp:\/\/x' must be an http\(s\) URL/,
    );
  });

  it("resolves index.refresh_seconds from env over YAML (default 30, 0 = off), naming a bad one", () => {
    const cwd = sandbox();
    expect(resolveServerConfig({}, {}, cwd).indexRefreshSeconds).toBe(30);
    writeFileSync(join(cwd, "c.yaml"), "index:\n  refresh_seconds: 0\n");
    expect(resolveServerConfig({ config: "c.yaml" }, {}, cwd).indexRefreshSeconds).toBe(0);
    expect(
      resolveServerConfig({ config: "c.yaml" }, { CARTOGRAPHER_INDEX_REFRESH_SECONDS: "2.5" }, cwd)
        .indexRefreshSeconds,
    ).toBe(2.5);
    for (const bad of ["-1", "30s", "1e9", "Infinity", " "])
      expect(
        () => resolveServerConfig({}, { CARTOGRAPHER_INDEX_REFRESH_SECONDS: bad }, cwd),
        bad,
      ).toThrow(/CARTOGRAPHER_INDEX_REFRESH_SECONDS: '.*' is not a number of seconds/);
    for (const [yaml, got] of [
      ["refresh_seconds: -5", /index\.refresh_seconds: .*got -5/],
      ["refresh_seconds: soon", /index\.refresh_seconds: .*got "soon"/],
      ["refresh_seconds: 100000", /index\.refresh_seconds: .*got 100000/],
      ["refresh_secs: 5", /refresh_secs/],
    ] as const) {
      writeFileSync(join(cwd, "c.yaml"), `index:\n  ${yaml}\n`);
      expect(() => resolveServerConfig({ config: "c.yaml" }, {}, cwd), yaml).toThrow(got);
    }
  });
});
