/**
 * `cartographer reindex [--kb NAME|PATH]` asks the running server named by the client yaml
 * (`server_url`) to rebuild the KBs it holds (its `reindex` tool, printed `<kb>: <result>` as
 * Go does), and rebuilds a KB folder locally only when no process holds it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, GIT_ENV, type RunningServer, runBin, startServer, tempDir } from "./helpers.js";

const sandbox = tempDir("carto-reindex-");
const dir = sandbox.dir;
const env = cleanEnv({ ...GIT_ENV, HOME: join(dir, "home") });
let server: RunningServer | undefined;

beforeAll(async () => {
  for (const name of ["Notes", "papers"]) {
    const made = await runBin(["kb", "create", name, "--data", "kbs"], { cwd: dir, env });
    expect(made.code, made.stderr).toBe(0);
  }
  server = await startServer(["--data", "kbs", "--http", "127.0.0.1:0"], {
    cwd: dir,
    env: cleanEnv({ ...GIT_ENV, CARTOGRAPHER_AUTH: "false" }),
  });
  await runBin(["kb", "create", "spare", "--data", "elsewhere"], { cwd: dir, env });
  const home = join(dir, "home");
  await import("node:fs").then((fs) => fs.mkdirSync(home, { recursive: true }));
  writeFileSync(join(home, ".cartographer.yaml"), `server_url: ${server.url}/mcp\n`);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  sandbox.cleanup();
});

const reindex = (...args: string[]) => runBin(["reindex", ...args], { cwd: dir, env });
const SERVER_LINE =
  /^(\w+): \{"added":\d+,"changed":\d+,"removed":\d+,"unchanged":\d+,"total":\d+,"ms":\d+\}$/;

describe("reindex through the running server", () => {
  it("with no --kb: every KB of the server, through its reindex tool", async () => {
    const r = await reindex();
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.map((l) => SERVER_LINE.exec(l)?.[1])).toEqual(["Notes", "papers"]);
  });

  it("--kb NAME (as written, or in another case) and --kb PATH of a KB the server holds go to the server", async () => {
    for (const kb of ["Notes", "notes", join("kbs", "Notes")]) {
      const r = await reindex("--kb", kb);
      expect(r.code, `${kb}: ${r.stderr}`).toBe(0);
      expect(r.stdout.trim(), kb).toMatch(SERVER_LINE);
      expect(r.stdout.startsWith("Notes: "), kb).toBe(true);
    }
  });

  it("--kb PATH of a folder no process holds is rebuilt locally; an unknown name is an error naming the mounted KBs", async () => {
    const local = await reindex("--kb", join("elsewhere", "spare"));
    expect(local.code, local.stderr).toBe(0);
    expect(JSON.parse(local.stdout)).toMatchObject({
      kb: join(dir, "elsewhere", "spare"),
      added: 0,
    });
    const unknown = await reindex("--kb", "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/has no KB 'nope'; mounted: Notes, papers/);
  });

  it("no server answering: a NAME is an error saying so; a PATH is rebuilt locally", async () => {
    await server?.stop();
    const byName = await reindex("--kb", "papers");
    expect(byName.code).toBe(1);
    expect(byName.stderr).toMatch(/no running server answers at http:\/\/127\.0\.0\.1:\d+/);
    const byPath = await reindex("--kb", join("kbs", "papers"));
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(JSON.parse(byPath.stdout)).toMatchObject({ kb: join(dir, "kbs", "papers"), added: 0 });
  });
});
