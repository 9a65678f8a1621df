/**
 * `{{repo:…}}` / `{{path:…}}` in a KB's instructions.md, through a real `connect` of the built
 * binary against a real server: expanded into the provider's instructions block with a "Local
 * paths" table, an unresolved one left as written and warned about, status and doctor in sync
 * afterwards, a sync that changes nothing rewriting nothing, a moved clone followed.
 */
import { renameSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeKbs, managedBlock, type Sandbox, sandbox, serveKbs } from "../client/e2e/helpers.js";
import { makeClone } from "../client/repos/clones.js";
import type { RunningServer } from "./helpers.js";

const TOKEN = "any-token-0123456789";
const INSTRUCTIONS =
  "Build {{repo:tool}} with make.\nAssets live in {{path:assets}}.\nSee also {{repo:nowhere}}.\n";

let sb: Sandbox;
let server: RunningServer;
let tool: string;

beforeAll(async () => {
  sb = sandbox();
  tool = makeClone(path.join(sb.home, "src", "tool"), "git@github.com:acme/tool.git");
  await makeKbs(sb.dir, ["notes"], { notes: INSTRUCTIONS });
  server = await serveKbs(sb.dir);
  sb.write(".cartographer.yaml", "search_roots: [~/src]\npaths:\n  assets: ~/assets\n");
  expect((await sb.cli(["trust", "notes"])).code).toBe(0);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

const block = () => managedBlock(sb.read(".claude/CLAUDE.md"), "claude") ?? "";

describe("placeholders in a KB's instructions, expanded by the client", () => {
  it("connect writes the local paths, a Local paths table, and leaves an unresolved one with a warning", async () => {
    const res = await sb.cli([
      "connect",
      "claude",
      "--server-url",
      server.url,
      "--token-env",
      "CARTO_TOKEN",
    ]);
    expect(res.code, res.stderr).toBe(0);
    const b = block();
    expect(b).toContain(`Build ${tool} with make.`);
    expect(b).toContain(`Assets live in ${path.join(sb.home, "assets")}.`);
    expect(b).toContain("See also {{repo:nowhere}}.");
    expect(b).toContain(
      [
        "### Local paths",
        "",
        "| Placeholder | Local path |",
        "|---|---|",
        `| \`{{path:assets}}\` | \`${path.join(sb.home, "assets")}\` |`,
        `| \`{{repo:tool}}\` | \`${tool}\` |`,
      ].join("\n"),
    );
    expect(b).not.toContain("{{repo:tool}} with");
    expect(res.stderr).toMatch(
      /cartographer warn: instructions of KB notes: \{\{repo:nowhere\}\} left as written: repo:nowhere: no clone .*search_roots ~\/src/,
    );
    // The server's text is untouched: it still serves the placeholders.
    expect(sb.read("../kbs/notes/instructions.md")).toBe(INSTRUCTIONS);
  });

  it("status and doctor report no drift; a sync that changes nothing rewrites nothing", async () => {
    const st = await sb.cli(["status"], TOKEN);
    expect(st.code, st.stdout + st.stderr).toBe(0);
    // status names the placeholder left as written too, as a note (not drift).
    expect(st.stdout).toContain("{{repo:nowhere}} in ~/.claude/CLAUDE.md is not resolved");
    const doc = await sb.cli(["doctor"], TOKEN);
    expect(doc.code, doc.stdout + doc.stderr).toBe(0);
    // The one left unresolved is a note of doctor's (lib/placeholder-warnings.ts), not drift.
    expect(doc.stdout).toContain(
      "note: claude: {{repo:nowhere}} in ~/.claude/CLAUDE.md is not resolved on this machine",
    );
    expect(doc.stdout).not.toContain("{{repo:tool}} in");
    const file = path.join(sb.home, ".claude", "CLAUDE.md");
    const before = statSync(file).mtimeMs;
    const text = sb.read(".claude/CLAUDE.md");
    const again = await sb.cli(["sync"], TOKEN);
    expect(again.code, again.stderr).toBe(0);
    expect(sb.read(".claude/CLAUDE.md")).toBe(text);
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it("a clone moved elsewhere under the roots: the next sync writes its new path", async () => {
    const moved = path.join(sb.home, "src", "renamed-tool");
    renameSync(tool, moved);
    const res = await sb.cli(["sync"], TOKEN);
    expect(res.code, res.stderr).toBe(0);
    expect(block()).toContain(`Build ${moved} with make.`);
    expect(block()).toContain(`| \`{{repo:tool}}\` | \`${moved}\` |`);
    expect((await sb.cli(["status"], TOKEN)).code).toBe(0);
  });
});
