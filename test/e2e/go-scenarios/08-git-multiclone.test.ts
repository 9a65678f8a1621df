/**
 * Go scenario 08_git_multiclone: two servers on two clones of one bare remote. A is started with
 * `--init` on an empty folder named `kbA`, the operator adds origin and pushes; B is a clone.
 * Plain JSON POSTs (only Content-Type, as the Go script's curl) to `/mcp?kb=kbA`:
 * `map_create {name, title}` (no kind), concept_write, concept_expand, concept_write; then any
 * write on B pulls A's concept into B's working tree.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitSync } from "../../support/sync-remote.js";
import { cleanEnv, GIT_ENV, type RunningServer, startServer, tempDir } from "../helpers.js";
import { plainCall, textOf } from "./plain-mcp.js";

const ENV = cleanEnv({
  ...GIT_ENV,
  CARTOGRAPHER_AUTH: "false",
  CARTOGRAPHER_GIT_SYNC: "true",
  CARTOGRAPHER_SYNC_OUT_DEBOUNCE: "0",
});

const sandbox = tempDir("carto-go08-");
const remote = { dir: sandbox.dir, bare: join(sandbox.dir, "remote.git") };
const servers: RunningServer[] = [];

beforeAll(() => {
  // An empty remote advertising main, as the Go script makes it.
  gitSync(remote.dir, "init", "-q", "--bare", "-b", "main", remote.bare);
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  sandbox.cleanup();
});

async function serve(folder: string): Promise<RunningServer> {
  const s = await startServer(["--kb", folder, "--init", "--http", "127.0.0.1:0"], {
    cwd: remote.dir,
    env: ENV,
  });
  servers.push(s);
  return s;
}

describe("Go scenario 08_git_multiclone", () => {
  it("a concept written on A through plain JSON calls reaches clone B's working tree", async () => {
    const kbA = join(remote.dir, "kbA");
    const kbB = join(remote.dir, "kbB");
    mkdirSync(kbA);
    const a = await serve("kbA");
    const health = (await (await fetch(`${a.url}/health`)).json()) as { kbs: { name: string }[] };
    expect(health.kbs.map((k) => k.name)).toEqual(["kbA"]);
    gitSync(kbA, "remote", "add", "origin", remote.bare);
    gitSync(kbA, "push", "-q", "-u", "origin", "main");
    gitSync(remote.dir, "clone", "-q", remote.bare, kbB);
    const b = await serve("kbB");

    const onA = `${a.url}/mcp?kb=kbA`;
    for (const [name, args] of [
      ["map_create", { name: "shared", title: "Shared" }],
      [
        "concept_write",
        { id: "shared/notes", frontmatter: { type: "Index", title: "Notes" }, body: "# Notes\n" },
      ],
      ["concept_expand", { id: "shared/notes" }],
      [
        "concept_write",
        {
          id: "shared/notes/from-a",
          frontmatter: { type: "note", title: "From A" },
          body: "Concept created on instance A.",
        },
      ],
    ] as const) {
      const r = await plainCall(onA, name, args);
      expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
    }
    const onB = await plainCall(`${b.url}/mcp?kb=kbB`, "map_create", {
      name: "local-b",
      title: "Local B",
    });
    expect(onB.isError, textOf(onB)).toBeFalsy();

    const inB = join(kbB, "data", "shared", "notes", "from-a.md");
    expect(existsSync(inB)).toBe(true);
    expect(readFileSync(inB, "utf8")).toContain("instance A");
  }, 90_000);
});
