/**
 * `cartographer import` end to end: a generated vault into a KB folder (plan → the store's
 * batch apply, one commit per chunk or one with --commit), and into a KB a running server holds
 * (real server on 127.0.0.1, the official MCP SDK client, one concept_batch per chunk). A dry
 * run writes nothing; a second import skips everything.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/program.js";
import type { ImportReport } from "../../../src/kb/import/report.js";
import { silentLogger } from "../../../src/logger.js";
import { closeMount, mountKb } from "../../../src/runtime/mount.js";
import { serveMounts } from "../../http/helpers.js";
import { writeVault } from "../../kb/import/vault.js";
import { git, seedKb, testKbSettings } from "../../support/kb.js";
import { tempDir } from "../../support/temp-dir.js";

const sandbox = tempDir("carto-import-cli-");
const vault = join(sandbox.dir, "vault");
let kbCount = 0;

beforeAll(() => {
  mkdirSync(vault);
  writeVault(vault);
});
afterAll(() => sandbox.cleanup());

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: "", stderr: "" };
  const stream = (key: "stdout" | "stderr") => {
    const s = new PassThrough();
    s.on("data", (c) => {
      out[key] += String(c);
    });
    return s;
  };
  const code = await runCli(["import", ...args], {
    env: { HOME: join(sandbox.dir, "home") },
    cwd: sandbox.dir,
    stdout: stream("stdout"),
    stderr: stream("stderr"),
    stdin: new PassThrough(),
  });
  return { code, ...out };
}

async function newKb(name = `kb${++kbCount}`): Promise<string> {
  const root = join(sandbox.dir, name);
  await seedKb(root);
  return root;
}

const report = (stdout: string) => JSON.parse(stdout) as ImportReport;

/** A source whose second note the KB refuses (an empty type is kept, never replaced). */
function sourceWithBadNote(name: string): string {
  const src = join(sandbox.dir, name);
  mkdirSync(src);
  writeFileSync(join(src, "A.md"), "first");
  writeFileSync(join(src, "B.md"), '---\ntype: ""\n---\nrefused');
  writeFileSync(join(src, "C.md"), "third");
  return src;
}

function expectOneRefused(r: { code: number; stdout: string }): void {
  expect(r.code).toBe(1);
  const rep = report(r.stdout);
  expect(rep.imported.map((i) => i.id)).toEqual(["m/a", "m/c"]);
  expect(rep.errors).toEqual([
    { source: "B.md", message: expect.stringMatching(/invalid_frontmatter: .*type is required/) },
  ]);
}
const commitCount = (root: string) => Number(git(root, ["rev-list", "--count", "HEAD"]));

describe("import into a KB folder no process holds", () => {
  it("a dry run prints the plan and writes nothing", async () => {
    const kb = await newKb();
    const head = git(kb, ["rev-parse", "HEAD"]);
    const r = await cli(["--source", "vault", "--kb", kb, "--default-map", "notes", "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("[dry-run] Projects/Alpha/Plan.md -> data/notes/plan-2.md\n");
    expect(r.stdout).toContain("[dry-run] create map notes\n");
    expect(r.stdout).toMatch(/would import: 7, skipped: 0, errors: 0 \(assets: 1, renamed: 2/);
    expect(git(kb, ["rev-parse", "HEAD"])).toBe(head);
    expect(git(kb, ["status", "--porcelain"])).toBe("");
    expect(existsSync(join(kb, "data", "notes"))).toBe(false);
  });

  it("imports notes, an attachment and a map, one commit per chunk; a second import skips everything", async () => {
    const kb = await newKb();
    const before = commitCount(kb);
    const r = await cli(["--source", "vault", "--kb", kb, "--default-map", "notes", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const first = report(r.stdout);
    expect(first).toMatchObject({
      via: "local",
      dry_run: false,
      maps_created: ["notes"],
      commits: 2,
    });
    expect(first.imported.map((i) => i.id).sort()).toEqual([
      "notes/2024-01-01",
      "notes/alpha",
      "notes/concept",
      "notes/home",
      "notes/plan",
      "notes/plan-2",
      "notes/resume-cafe",
    ]);
    expect(first.symlinks_skipped).toEqual(["secret.md"]);
    expect(commitCount(kb)).toBe(before + 2);
    expect(readFileSync(join(kb, "data/notes/2024-01-01/diagram.png"))).toEqual(
      readFileSync(join(vault, "attachments/diagram.png")),
    );
    expect(readFileSync(join(kb, "data/notes/home.md"), "utf8")).toBe(
      "---\ntitle: Welcome\ntype: Note\nstatus: imported\ntags: [start]\n---\n# Welcome\nStart at [[notes/plan|Plan]], then [[notes/plan-2|the alpha plan]].\n#start\n",
    );
    expect(git(kb, ["status", "--porcelain"])).toBe("");

    const again = await cli(["--source", "vault", "--kb", kb, "--default-map", "notes", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const second = report(again.stdout);
    expect(second).toMatchObject({ imported: [], commits: 0, assets: [], maps_created: [] });
    expect(second.skipped).toHaveLength(7);
    expect(commitCount(kb)).toBe(before + 2);
  });

  it("--message makes one commit of the whole import; --dir-as-concept expands folder concepts", async () => {
    const kb = await newKb();
    const src = join(sandbox.dir, "docs");
    mkdirSync(join(src, "Guide"), { recursive: true });
    writeFileSync(join(src, "Guide", "README.md"), "# Guide\nSee [setup](Setup.md).\n");
    writeFileSync(join(src, "Guide", "Setup.md"), "# Setup\nBack to [the guide](README.md).\n");
    const before = commitCount(kb);
    const r = await cli([
      "--source",
      src,
      "--kb",
      kb,
      "--map",
      ".=docs",
      "--dir-as-concept",
      "--message",
      "docs: import",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^imported: 2, skipped: 0, errors: 0 \(commits: 1\)$/m);
    expect(commitCount(kb)).toBe(before + 1);
    expect(git(kb, ["log", "-1", "--format=%s"])).toBe("docs: import");
    expect(readFileSync(join(kb, "data/docs/guide/index.md"), "utf8")).toContain(
      "See [setup](setup.md).",
    );
    expect(readFileSync(join(kb, "data/docs/guide/setup.md"), "utf8")).toContain(
      "Back to [the guide](index.md).",
    );
  });

  it("a note the KB refuses is an error naming it; the rest of its chunk is imported (exit 1)", async () => {
    const kb = await newKb();
    const src = sourceWithBadNote("bad-local");
    expectOneRefused(await cli(["--source", src, "--kb", kb, "--default-map", "m", "--json"]));
  });

  it("bad input is exit 2 with what to fix", async () => {
    const kb = await newKb();
    const noMap = await cli(["--source", "vault", "--kb", kb]);
    expect(noMap.code).toBe(2);
    expect(noMap.stderr).toMatch(
      /no destination for source folder\(s\) .*add --map <srcdir>=<map> or --default-map/,
    );
    const badMap = await cli(["--source", "vault", "--kb", kb, "--map", "Daily=Bad Name"]);
    expect(badMap.code).toBe(2);
    expect(badMap.stderr).toMatch(/--map Daily=Bad Name: .*must match \[a-z0-9._-\]\+/);
    const inside = await cli(["--source", join(kb, "data"), "--kb", kb, "--default-map", "x"]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toMatch(/overlap: import from a folder outside the KB/);
  });
});

describe("import into a KB a running server holds", () => {
  it("goes through the server's tools: same result, one concept_batch commit per chunk, then skips", async () => {
    // A served KB is named after its folder, which is how --kb PATH finds it on the server.
    const root = await newKb("wiki");
    const mount = await mountKb(testKbSettings(root, { name: "wiki" }), { logger: silentLogger });
    const server = await serveMounts([mount]);
    try {
      const config = join(sandbox.dir, "client.yaml");
      writeFileSync(config, `server_url: ${server.url}/mcp\n`);
      const args = ["--source", "vault", "--default-map", "notes", "--config", config, "--json"];
      const r = await cli([...args, "--kb", root]);
      expect(r.code, r.stderr).toBe(0);
      const first = report(r.stdout);
      // map_create, one concept_batch, one asset_write.
      expect(first).toMatchObject({ via: "server", maps_created: ["notes"], commits: 3 });
      expect(first.imported).toHaveLength(7);
      expect(first.assets.map((a) => a.path)).toEqual(["data/notes/2024-01-01/diagram.png"]);
      expect(git(root, ["log", "--format=%s", "-3"]).split("\n")[1]).toMatch(/^concept_batch: /);
      expect(readFileSync(join(root, "data/notes/plan-2.md"), "utf8")).toContain(
        "Back to [home](home.md) and [day](2024-01-01.md#day-one).",
      );
      const byName = await cli([...args, "--kb", "wiki"]);
      expect(byName.code, byName.stderr).toBe(0);
      expect(report(byName.stdout)).toMatchObject({ via: "server", imported: [], commits: 0 });
      expect(report(byName.stdout).skipped).toHaveLength(7);
      const guide = join(sandbox.dir, "guide-server", "Guide");
      mkdirSync(guide, { recursive: true });
      writeFileSync(join(guide, "index.md"), "# Guide\nSee [[Setup]].\n");
      writeFileSync(join(guide, "Setup.md"), "# Setup\n");
      const folder = await cli([
        "--source",
        join(sandbox.dir, "guide-server"),
        "--kb",
        "wiki",
        "--default-map",
        "docs",
        "--dir-as-concept",
        "--config",
        config,
      ]);
      expect(folder.code, folder.stderr).toBe(0);
      // map_create, one concept_batch, one concept_expand.
      expect(folder.stdout).toMatch(/^imported: 2, skipped: 0, errors: 0 \(commits: 3\)$/m);
      expect(readFileSync(join(root, "data/docs/guide/index.md"), "utf8")).toContain(
        "See [[docs/guide/setup|Setup]].",
      );
      const src = sourceWithBadNote("bad-server");
      expectOneRefused(
        await cli([
          "--source",
          src,
          "--kb",
          "wiki",
          "--default-map",
          "m",
          "--config",
          config,
          "--json",
        ]),
      );
      const once = await cli([...args, "--kb", "wiki", "--commit"]);
      expect(once.code).toBe(2);
      expect(once.stderr).toMatch(
        /commits each chunk itself: --commit and --message apply to a KB folder/,
      );
    } finally {
      await server.close();
      await closeMount(mount).catch(() => {});
    }
  });
});
