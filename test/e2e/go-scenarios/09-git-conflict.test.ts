/**
 * Go scenario 09_git_conflict: two servers on two clones of one bare remote (A started with
 * `--init` on an empty folder `kbA`, origin added and pushed by the operator; B a clone). A writes
 * shared/notes/c, B rewrites it, A gets a third body committed directly in git (not pushed); A's
 * next call (log_append) meets the rebase conflict: `.cartographer/conflicts.json` names the
 * concept, its file says `status: degraded`, conflicts_list lists it. Then Go's kb-conflict-resolve
 * procedure on A: conflicts_list (Go's fields), concept_write of the reconciled body, then
 * git_conflict_resolve {concept_id, strategy: ours}: one merge commit on the remote.
 * Plain JSON POSTs (only Content-Type) to `/mcp?kb=<name>`, as the Go script's curl.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitSync } from "../../support/sync-remote.js";
import { cleanEnv, GIT_ENV, type RunningServer, startServer, tempDir } from "../helpers.js";
import { plainCall, textOf } from "./plain-mcp.js";

const ENV = cleanEnv({
  ...GIT_ENV,
  CARTOGRAPHER_AUTH: "false",
  CARTOGRAPHER_GIT_SYNC: "true",
  CARTOGRAPHER_SYNC_OUT_DEBOUNCE: "0",
});
const sandbox = tempDir("carto-go09-");
const dir = sandbox.dir;
const bare = join(dir, "remote.git");
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  sandbox.cleanup();
});

async function serve(folder: string): Promise<string> {
  const s = await startServer(["--kb", folder, "--init", "--http", "127.0.0.1:0"], {
    cwd: dir,
    env: ENV,
  });
  servers.push(s);
  return `${s.url}/mcp?kb=${folder}`;
}

const ok = async (endpoint: string, name: string, args: Record<string, unknown>) => {
  const r = await plainCall(endpoint, name, args);
  expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
  return JSON.parse(textOf(r)) as Record<string, unknown>;
};
const note = (id: string, title: string, body: string) => ({
  id,
  frontmatter: { type: "note", title },
  body,
});

describe("Go scenario 09_git_conflict", () => {
  it("the conflict is registered, marked degraded, listed; Go's procedure resolves it", async () => {
    gitSync(dir, "init", "-q", "--bare", "-b", "main", bare);
    const kbA = join(dir, "kbA");
    const kbB = join(dir, "kbB");
    mkdirSync(kbA);
    const onA = await serve("kbA");
    gitSync(kbA, "remote", "add", "origin", bare);
    gitSync(kbA, "push", "-q", "-u", "origin", "main");
    gitSync(dir, "clone", "-q", bare, kbB);
    const onB = await serve("kbB");

    await ok(onA, "map_create", { name: "shared", title: "Shared" });
    await ok(onA, "concept_write", {
      id: "shared/notes",
      frontmatter: { type: "Index", title: "Notes" },
      body: "# Notes\n",
    });
    await ok(onA, "concept_expand", { id: "shared/notes" });
    await ok(
      onA,
      "concept_write",
      note("shared/notes/c", "Shared Note C", "body1: written by A.\n"),
    );
    await ok(onB, "map_create", { name: "local-b", title: "Local B" });
    await ok(
      onB,
      "concept_write",
      note("shared/notes/c", "Shared Note C", "body2: rewritten by B.\n"),
    );

    const conceptA = join(kbA, "data", "shared", "notes", "c.md");
    writeFileSync(
      conceptA,
      "---\ntype: note\ntitle: Shared Note C\n---\nbody3: rewritten directly by A (no MCP).\n",
    );
    execFileSync("git", ["add", "-A"], { cwd: kbA, env: ENV });
    execFileSync("git", ["commit", "-q", "-m", "A: body3 direct commit"], { cwd: kbA, env: ENV });
    // Any MCP operation on A pulls and meets the conflict (the Go script ignores its answer).
    await plainCall(onA, "log_append", { entry: "conflict test entry" });

    expect(readFileSync(join(kbA, ".cartographer", "conflicts.json"), "utf8")).toContain(
      "shared/notes/c",
    );
    expect(readFileSync(conceptA, "utf8")).toContain("status: degraded");
    const listed = await ok(onA, "conflicts_list", {});
    expect(JSON.stringify(listed)).toContain("shared/notes/c");
    expect((listed.conflicts as Record<string, unknown>[])[0]).toMatchObject({
      concept_id: "shared/notes/c",
      path: "data/shared/notes/c.md",
      branch: "main",
      files: ["data/shared/notes/c.md"],
    });

    // Go's kb-conflict-resolve skill: read, write the reconciled version, resolve.
    const read = await ok(onA, "concept_read", { id: "shared/notes/c" });
    expect(read.frontmatter).toMatchObject({ status: "degraded" });
    await ok(
      onA,
      "concept_write",
      note("shared/notes/c", "Shared Note C", "reconciled: body2 and body3.\n"),
    );
    const resolved = await ok(onA, "git_conflict_resolve", {
      concept_id: "shared/notes/c",
      strategy: "ours",
    });
    expect(resolved).toMatchObject({ resolved: "shared/notes/c", open: [] });
    expect(await ok(onA, "conflicts_list", {})).toEqual({ conflicts: [], total: 0 });
    const onRemote = gitSync(bare, "show", "main:data/shared/notes/c.md");
    expect(onRemote).toContain("reconciled: body2 and body3.");
    expect(onRemote).not.toContain("status: degraded");
  }, 120_000);
});
