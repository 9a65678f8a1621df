import path from "node:path";
import { describe, expect, it } from "vitest";
import { expandInstructions } from "../../../src/client/repos/expand-instructions.js";
import { PathResolver } from "../../../src/client/repos/resolver.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { makeClone } from "./clones.js";

const newDir = useTempDirs("carto-expand-");

describe("expandInstructions: every KB's instructions, one resolver per run", () => {
  it("resolves repo: through the index and path: through paths:, leaves the rest with a warning", async () => {
    const home = newDir();
    const tool = makeClone(path.join(home, "src", "tool"), "git@github.com:acme/tool.git");
    const resolver = new PathResolver(
      { home },
      { search_roots: ["~/src"], paths: { assets: "~/assets" } },
      "~/.cartographer.yaml",
    );
    const out = await expandInstructions(
      new Map([
        ["notes", "Code: {{repo:tool}}. Assets: {{path:assets}}. Lost: {{repo:lost}}."],
        ["plain", "No placeholder here.\n"],
      ]),
      () => resolver,
    );
    expect(out.byKb.get("notes")).toEqual({
      text: `Code: ${tool}. Assets: ${path.join(home, "assets")}. Lost: {{repo:lost}}.`,
      localPaths: new Map([
        ["repo:tool", tool],
        ["path:assets", path.join(home, "assets")],
      ]),
    });
    expect(out.byKb.get("plain")).toEqual({
      text: "No placeholder here.\n",
      localPaths: new Map(),
    });
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toMatch(
      /^instructions of KB notes: \{\{repo:lost\}\} left as written: repo:lost: no clone/,
    );
  });

  it("no placeholder anywhere: the resolver is never made (no cache read, no scan)", async () => {
    let made = 0;
    const out = await expandInstructions(new Map([["kb", "text {{name}}"]]), () => {
      made++;
      throw new Error("not expected");
    });
    expect(made).toBe(0);
    expect(out.byKb.get("kb")?.text).toBe("text {{name}}");
  });

  it("paths: overrides a repository key, as in the Go client", async () => {
    const home = newDir();
    makeClone(path.join(home, "src", "tool"), "git@github.com:acme/tool.git");
    const resolver = new PathResolver(
      { home },
      { search_roots: ["~/src"], paths: { tool: "/opt/tool" } },
      "cfg",
    );
    expect((await resolver.resolve("repo", "tool")).path).toBe("/opt/tool");
  });
});
