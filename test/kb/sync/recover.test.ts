/**
 * A clone left in a bad state by a crash or a hostile push (docs/sync.md "Recovery after a crash"):
 * an interrupted rebase (detached, half-replayed HEAD, a commit acked on it) and a stale index.lock
 * are recovered at open; a write on a detached HEAD is refused and `unpushed` counts what is not on
 * the remote; a force-push stops sync (`diverged`) until `kb resync` keeps the remote and
 * re-applies only our commits; a remote that tracks `.cartographer/` is not pulled and a tracked
 * registry is ignored.
 */
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { remoteAccess } from "../../../src/kb/sync/remote-access.js";
import { resyncKb } from "../../../src/kb/sync/resync.js";
import { memoryLogger } from "../../../src/logger.js";
import { closeMount } from "../../../src/runtime/mount.js";
import {
  bareRemote,
  gitSync,
  jsonOf,
  type Remote,
  remoteLog,
  textOf,
} from "../../support/sync-remote.js";
import { type Call, mountClone, writeConcept } from "./mount-clone.js";

const ID = ["-c", "user.name=T", "-c", "user.email=t@test.invalid"];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function newRemote(): Promise<Remote> {
  const remote = await bareRemote();
  cleanups.push(remote.cleanup);
  return remote;
}

function clone(remote: Remote, name: string): string {
  const root = join(remote.dir, name);
  gitSync(remote.dir, "clone", "-q", remote.bare, root);
  return root;
}

function commitConcept(root: string, id: string, extra: string[] = []): void {
  writeFileSync(join(root, "data", `${id}.md`), `---\ntype: note\ntitle: ${id}\n---\n${id} body\n`);
  gitSync(root, "add", `data/${id}.md`, ...extra);
  gitSync(root, ...ID, "commit", "-qm", `concept_write: ${id}`);
}

const ids = async (call: Call) =>
  (jsonOf(await call("concept_list", { limit: 100 })).items as { id: string }[]).map((c) => c.id);

describe("recovery at open", () => {
  it("an interrupted, half-replayed rebase with a write acked on its detached HEAD: nothing lost", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    commitConcept(b, "l1");
    commitConcept(b, "l2");
    const human = clone(remote, "human");
    commitConcept(human, "h1");
    gitSync(human, "push", "-q", "origin", "HEAD:main");
    gitSync(b, "fetch", "-q", "origin");
    // Stop after the first replayed commit, as a SIGKILL mid-rebase leaves it.
    gitSync(b, ...ID, "-c", "sequence.editor=sed -i '2i break'", "rebase", "-i", "origin/main");
    expect(existsSync(join(b, ".git", "rebase-merge"))).toBe(true);
    commitConcept(b, "d1"); // acked on the detached HEAD by a server without the guard

    const logger = memoryLogger();
    const { call } = await mountClone(b, cleanups, { logger: logger });
    expect(existsSync(join(b, ".git", "rebase-merge"))).toBe(false);
    expect(gitSync(b, "symbolic-ref", "--short", "HEAD").trim()).toBe("main");
    expect(logger.lines.join("\n")).toMatch(/recovery at open: aborted an interrupted rebase/);
    const res = await writeConcept(call, "after");
    expect(res.isError, textOf(res)).toBeFalsy();
    const subjects = remoteLog(remote);
    for (const id of ["l1", "l2", "d1", "h1", "after"])
      expect(
        subjects.filter((s) => s === `concept_write: ${id}`),
        id,
      ).toHaveLength(1);
    expect(jsonOf(await call("sync_status", {}))).toMatchObject({ state: "clean", unpushed: 0 });
    const listed = await ids(call);
    for (const id of ["l1", "l2", "d1", "h1", "after"]) expect(listed).toContain(id);
  }, 60_000);

  it("a stale index.lock left by a killed git is removed; the write commits", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    const lock = join(b, ".git", "index.lock");
    writeFileSync(lock, "");
    utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const { call } = await mountClone(b, cleanups);
    const res = await writeConcept(call, "locked-out");
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(remoteLog(remote)[0]).toBe("concept_write: locked-out");
  }, 30_000);

  it("a detached HEAD refuses writes; unpushed counts the commits not on the remote", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    const { call } = await mountClone(b, cleanups);
    gitSync(b, "checkout", "-q", "--detach");
    commitConcept(b, "loose");
    const head = gitSync(b, "rev-parse", "HEAD").trim();
    const res = await writeConcept(call, "refused");
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/detached HEAD/);
    expect(gitSync(b, "rev-parse", "HEAD").trim()).toBe(head);
    expect(jsonOf(await call("sync_status", {}))).toMatchObject({ state: "failed", unpushed: 1 });
  }, 30_000);
});

describe("force-push", () => {
  it("diverged: sync stops, one log line; kb resync keeps the remote and re-applies only ours", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    const logger = memoryLogger();
    const { call, mount } = await mountClone(b, cleanups, { logger: logger });
    expect((await writeConcept(call, "secret")).isError).toBeFalsy();
    expect(remoteLog(remote)[0]).toBe("concept_write: secret");
    // A human drops the leaked commit from the remote.
    const human = clone(remote, "human");
    gitSync(human, "reset", "-q", "--hard", "HEAD~1");
    commitConcept(human, "human-fix");
    gitSync(human, "push", "-q", "--force", "origin", "HEAD:main");

    const after = await writeConcept(call, "mine-after");
    expect(after.isError, textOf(after)).toBeFalsy(); // lands locally
    await writeConcept(call, "mine-later");
    const status = jsonOf(await call("sync_status", {}));
    expect(status.state).toBe("diverged");
    expect(String(status.last_error)).toContain("cartographer kb resync kb");
    expect(remoteLog(remote)).not.toContain("concept_write: secret");
    expect(logger.lines.filter((l) => l.includes("diverged"))).toHaveLength(1);

    await closeMount(mount);
    const access = remoteAccess({}, process.env);
    const done = await resyncKb(
      { root: b, access, env: { ...process.env, ...access.env } },
      { name: "B", email: "b@test.invalid" },
    );
    expect(done.reapplied).toEqual(["concept_write: mine-after", "concept_write: mine-later"]);
    expect(done.pushProblem).toBeNull();
    const subjects = remoteLog(remote);
    expect(subjects.slice(0, 3)).toEqual([
      "concept_write: mine-later",
      "concept_write: mine-after",
      "concept_write: human-fix",
    ]);
    expect(subjects).not.toContain("concept_write: secret");
    // A server started again syncs normally.
    const again = await mountClone(b, cleanups);
    expect((await writeConcept(again.call, "resumed")).isError).toBeFalsy();
    expect(jsonOf(await again.call("sync_status", {})).state).toBe("clean");
  }, 60_000);
});

describe("private state in git", () => {
  it("a remote commit tracking .cartographer/ is not pulled; the local registry stays ours", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    const { call } = await mountClone(b, cleanups);
    const human = clone(remote, "human");
    mkdirSync(join(human, ".cartographer"), { recursive: true });
    const planted = JSON.stringify([
      {
        concept_id: "planted",
        path: "data/planted.md",
        local_sha: "a",
        remote_sha: "b",
        files: [],
        detected_at: "",
      },
    ]);
    writeFileSync(join(human, ".cartographer", "conflicts.json"), planted);
    gitSync(human, "add", "-f", ".cartographer/conflicts.json");
    gitSync(human, ...ID, "commit", "-qm", "track private state");
    gitSync(human, "push", "-q", "origin", "HEAD:main");

    const res = await writeConcept(call, "local-write");
    expect(res.isError, textOf(res)).toBeFalsy();
    const status = jsonOf(await call("sync_status", {}));
    expect(status.state).toBe("failed");
    expect(String(status.last_error)).toContain(".cartographer/conflicts.json");
    expect(
      existsSync(join(b, ".cartographer", "conflicts.json"))
        ? readFileSync(join(b, ".cartographer", "conflicts.json"), "utf8")
        : "",
    ).not.toContain("planted");
    expect(jsonOf(await call("conflicts_list", {})).total).toBe(0);
  }, 30_000);

  it("a registry that HEAD tracks is not trusted at open", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    mkdirSync(join(b, ".cartographer"), { recursive: true });
    writeFileSync(
      join(b, ".cartographer", "conflicts.json"),
      JSON.stringify([
        {
          concept_id: "planted",
          path: "data/planted.md",
          local_sha: "a",
          remote_sha: "b",
          files: [],
          detected_at: "",
        },
      ]),
    );
    gitSync(b, "add", "-f", ".cartographer/conflicts.json");
    gitSync(b, ...ID, "commit", "-qm", "tracked registry");
    const logger = memoryLogger();
    const { mount } = await mountClone(b, cleanups, { logger: logger });
    expect(mount.runtime.sync?.conflictCount).toBe(0);
    expect(logger.lines.join("\n")).toMatch(/conflicts registry is not trusted/);
  }, 30_000);
});
