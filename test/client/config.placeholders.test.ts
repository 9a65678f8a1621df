import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseClientConfig } from "../../src/client/config.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-cfg-");

describe("search_roots and paths in the client yaml", () => {
  it("are read as written (absolute or ~/); absent means the resolver's default", () => {
    const c = parseClientConfig(
      { search_roots: ["~/src", "/work"], paths: { assets: "~/a", "github.com/o/n": "/opt/n" } },
      "f",
    );
    expect(c.search_roots).toEqual(["~/src", "/work"]);
    expect(c.paths).toEqual({ assets: "~/a", "github.com/o/n": "/opt/n" });
    expect(parseClientConfig({}, "f").search_roots).toBeUndefined();
  });

  it.each([
    [{ search_roots: "~/src" }, "search_roots must be a list of strings"],
    [{ search_roots: ["src"] }, 'search_roots[0]: "src" is relative'],
    [{ paths: ["~/a"] }, "paths must map a name to a path"],
    [{ paths: { a: "rel/dir" } }, 'paths.a: "rel/dir" is relative'],
    [{ paths: { a: 3 } }, "paths.a must be a path"],
    [{ paths: { "a b": "/x" } }, 'paths: "a b" is not a usable name'],
  ])("%j is refused naming the key", (raw, message) => {
    expect(() => parseClientConfig(raw, "f.yaml")).toThrow(message);
  });

  it("a Go client's yaml is an error pointing at upgrade-repair, not a silently empty config", async () => {
    const file = path.join(newDir(), ".cartographer.yaml");
    writeFileSync(file, "server_url: http://127.0.0.1:39273/mcp\nagents: [claude]\ntrust: true\n");
    await expect(loadConfig(file)).rejects.toThrow(
      /Go client's shape.*cartographer upgrade-repair/,
    );
  });
});
