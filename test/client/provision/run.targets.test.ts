/**
 * The real targets through the real engine (provisionBindings), per provider at user scope on a
 * temp disk: a sync writes, a second sync rewrites nothing (bytes, modes, mtimes), status is
 * in sync, and once the KB offers nothing a sync prunes every file and section of ours while
 * the user's own settings come back as they were.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type ClientConfig, PROVIDER_IDS } from "../../../src/client/config.js";
import { printSync, statusJson } from "../../../src/client/provision/report.js";
import { provisionBindings } from "../../../src/client/provision/run.js";
import { provisionTargetFor } from "../../../src/client/provision/targets/index.js";
import type { Artifact } from "../../../src/client/provision/types.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { prepared, recordingIo, snapshot } from "./support.js";
import { fullSet } from "./targets/artifacts.js";

const newDir = useTempDirs("carto-tgt-engine-");
const config: ClientConfig = {
  server_url: "http://127.0.0.1:1",
  server_name: "cartographer",
  providers: [],
};

/** A file of the user's in each tool, in the layout a rewrite keeps. */
const USER_FILES: Record<string, [string, string]> = {
  claude: [".claude/settings.json", `${JSON.stringify({ model: "opus" }, null, 2)}\n`],
  codex: [".codex/config.toml", '# mine\nmodel = "o3"\n'],
  opencode: [".config/opencode/opencode.json", `${JSON.stringify({ theme: "dark" }, null, 2)}\n`],
  kiro: [
    ".kiro/settings/mcp.json",
    `${JSON.stringify({ mcpServers: { mine: { command: "x" } } }, null, 2)}\n`,
  ],
  antigravity: [
    ".gemini/config/mcp_config.json",
    `${JSON.stringify({ mcpServers: {} }, null, 2)}\n`,
  ],
};

async function run(
  home: string,
  id: (typeof PROVIDER_IDS)[number],
  arts: Artifact[],
  write = true,
  bootstrap = true,
) {
  const io = recordingIo(home);
  const result = await provisionBindings(
    io,
    config,
    [{ name: id, bootstrap_hook: bootstrap }],
    prepared(arts, ["homelab"]),
    {
      write,
      force: false,
      targetFor: provisionTargetFor,
    },
  );
  return { io, result };
}

describe.each(PROVIDER_IDS)("%s target through the engine", (id) => {
  it("sync writes, a second sync changes nothing, status is in sync, an empty KB without the bootstrap hook prunes back to the user's file", async () => {
    const home = newDir();
    const [rel, text] = USER_FILES[id] as [string, string];
    const userFile = path.join(home, rel);
    await fs.mkdir(path.dirname(userFile), { recursive: true });
    await fs.writeFile(userFile, text);

    const first = await run(home, id, fullSet());
    expect(printSync(first.io, first.result), first.io.err()).toBe(0);
    const written = await snapshot(home);
    expect(written.size).toBeGreaterThan(3);

    const second = await run(home, id, fullSet());
    expect(printSync(second.io, second.result), second.io.err()).toBe(0);
    const after = await snapshot(home);
    for (const [p, v] of written) if (!p.endsWith(".lock.json")) expect(after.get(p), p).toBe(v);

    const check = await run(home, id, fullSet(), false);
    expect(statusJson(check.io, check.result).state).toBe("in-sync");

    // The KB offers nothing and the bootstrap hook is turned off: nothing of ours is left.
    const pruned = await run(home, id, [], true, false);
    expect(printSync(pruned.io, pruned.result), pruned.io.err()).toBe(0);
    expect(await fs.readFile(userFile, "utf8")).toBe(text);
    const left = [...(await snapshot(home)).keys()].filter(
      (p) => !p.endsWith(".lock.json") && !(written.get(p) ?? "").startsWith("dir"),
    );
    // A shared file we created (Claude's ~/.claude.json) stays, emptied of ours: `{}`.
    const kept = [];
    for (const p of left) {
      if (p !== userFile && (await fs.readFile(p, "utf8")).trim() === "{}") continue;
      kept.push(p);
    }
    expect(kept).toEqual([userFile]);
  });
});
