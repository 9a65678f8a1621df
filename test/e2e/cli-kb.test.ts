import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../support/temp-dir.js";
import { cleanEnv, GIT_ENV, runBin } from "./helpers.js";

const sandbox = useTempDirs("carto-e2e-");

describe("cartographer kb create / list / reindex", () => {
  it("creates a KB with one commit, lists it, and reindexes it", async () => {
    const dir = sandbox();
    const env = cleanEnv(GIT_ENV);
    const created = await runBin(["kb", "create", "research", "--data", "kbs"], { cwd: dir, env });
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const root = join(dir, "kbs", "research");
    expect(readFileSync(join(root, "data", "index.md"), "utf8")).toMatch(/type: Index/);
    const commits = execFileSync("git", ["rev-list", "--count", "HEAD"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(commits.trim()).toBe("1");

    const listed = await runBin(["kb", "list", "--data", "kbs", "--json"], { cwd: dir, env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([{ name: "research", path: root }]);

    const reindexed = await runBin(["reindex", "--kb", root], { cwd: dir, env });
    expect(reindexed.code).toBe(0);
    const stats = JSON.parse(reindexed.stdout);
    expect(stats.kb).toBe(root);
    expect(existsSync(join(root, ".cartographer", "index.db"))).toBe(true);
  });

  it("refuses a bad name or an existing KB with exit 2 and creates nothing", async () => {
    const dir = sandbox();
    const env = cleanEnv(GIT_ENV);
    const bad = await runBin(["kb", "create", "Bad Name", "--data", "kbs"], { cwd: dir, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/kb name 'Bad Name' is not valid.*Bad-Name/);
    expect(existsSync(join(dir, "kbs", "Bad Name"))).toBe(false);

    const routed = await runBin(["kb", "create", "routed", "--data", "kbs"], { cwd: dir, env });
    expect(routed.code).toBe(2);
    expect(routed.stderr).toMatch(/reserved/);

    expect((await runBin(["kb", "create", "notes", "--data", "kbs"], { cwd: dir, env })).code).toBe(
      0,
    );
    const again = await runBin(["kb", "create", "notes", "--data", "kbs"], { cwd: dir, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
  });

  it("kb create that fails (no git) names the cause and leaves no folder behind", async () => {
    const dir = sandbox();
    const env = cleanEnv({ ...GIT_ENV, PATH: join(dir, "no-bin") });
    const res = await runBin(["kb", "create", "notes", "--data", "new/data"], { cwd: dir, env });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/git/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("reindex reports progress as plain lines when stderr is not a TTY", async () => {
    const dir = sandbox();
    const env = cleanEnv(GIT_ENV);
    await runBin(["kb", "create", "notes", "--data", "kbs"], { cwd: dir, env });
    const root = join(dir, "kbs", "notes");
    mkdirSync(join(root, "data", "misc"));
    for (let i = 0; i < 3; i++)
      writeFileSync(join(root, "data", "misc", `c${i}.md`), `---\ntype: note\n---\nc${i}\n`);
    const res = await runBin(["reindex", "--kb", root], { cwd: dir, env });
    expect(res.code).toBe(0);
    const lines = res.stderr.trim().split("\n");
    expect(lines.at(-1)).toBe("reindex: 3/3");
    expect(res.stderr).not.toContain("\r");
    expect(JSON.parse(res.stdout)).toMatchObject({ added: 3 });
  });

  it("kb list on a missing data directory says how to create one", async () => {
    const dir = sandbox();
    const res = await runBin(["kb", "list", "--data", "nowhere"], { cwd: dir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/does not exist.*kb create/);
  });

  it("an unknown command or option exits 2", async () => {
    const dir = sandbox();
    expect((await runBin(["frobnicate"], { cwd: dir })).code).toBe(2);
    expect((await runBin(["kb", "list", "--nope"], { cwd: dir })).code).toBe(2);
  });
});
