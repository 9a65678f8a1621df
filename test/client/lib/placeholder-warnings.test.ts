import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderBlock } from "../../../src/client/instructions.js";
import { unresolvedPlaceholderWarnings } from "../../../src/client/lib/placeholder-warnings.js";
import { useTempDirs } from "../../support/temp-dir.js";

const newDir = useTempDirs("carto-phwarn-");

function blockWith(instructions: string, localPaths?: Map<string, string>): string {
  return renderBlock({
    serverName: "cartographer",
    provider: "claude",
    routed: true,
    entries: [{ name: "cartographer", url: "http://127.0.0.1:1/mcp/routed" }],
    kbs: [
      {
        name: "notes",
        entry: "cartographer",
        instructions,
        ...(localPaths ? { localPaths } : {}),
      },
    ],
  });
}

describe("unresolvedPlaceholderWarnings: what status should warn about, offline", () => {
  const config = (home: string) => ({
    server_name: "cartographer",
    providers: [{ name: "claude" as const }],
    home,
  });

  it("names each placeholder left in a block, never the Local paths table's", async () => {
    const home = newDir();
    mkdirSync(path.join(home, ".claude"));
    writeFileSync(
      path.join(home, ".claude", "CLAUDE.md"),
      `# mine {{repo:outside-the-block}}\n\n${blockWith(
        "Code in /src/tool; see {{repo:gone}} and {{path:x}}.",
        new Map([["repo:tool", "/src/tool"]]),
      )}\n`,
    );
    const io = { home, cwd: home, env: {}, stdout: process.stdout, stderr: process.stderr };
    const warnings = await unresolvedPlaceholderWarnings(io, config(home));
    expect(warnings).toEqual([
      "claude: {{repo:gone}} in ~/.claude/CLAUDE.md is not resolved on this machine; cartographer resolve repo:gone says why (add paths: or search_roots: to the client yaml, then cartographer sync)",
      "claude: {{path:x}} in ~/.claude/CLAUDE.md is not resolved on this machine; cartographer resolve path:x says why (add paths: or search_roots: to the client yaml, then cartographer sync)",
    ]);
  });

  it("nothing to say for a fully resolved block, or no file at all", async () => {
    const home = newDir();
    const io = { home, cwd: home, env: {}, stdout: process.stdout, stderr: process.stderr };
    expect(await unresolvedPlaceholderWarnings(io, config(home))).toEqual([]);
    mkdirSync(path.join(home, ".claude"));
    writeFileSync(
      path.join(home, ".claude", "CLAUDE.md"),
      blockWith("Code in /src/tool.", new Map([["repo:tool", "/src/tool"]])),
    );
    expect(await unresolvedPlaceholderWarnings(io, config(home))).toEqual([]);
  });
});
