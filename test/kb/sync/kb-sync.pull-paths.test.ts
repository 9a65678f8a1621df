/**
 * What a pull brings in (docs/sync.md "Sync in"): a symlink (a refused path) in a
 * pulled commit is skipped and logged, the rest of the pull is indexed, the write that triggered it
 * succeeds, and a concept replaced by a symlink leaves the index; an origin added or re-pointed
 * while the server runs is synced with from the next sync on.
 */
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { memoryLogger } from "../../../src/logger.js";
import { mountKb } from "../../../src/runtime/mount.js";
import {
  bareRemote,
  gitSync,
  jsonOf,
  type Remote,
  remoteLog,
  syncSettings,
  textOf,
} from "../../support/sync-remote.js";
import { type Call, mountClone, writeConcept } from "./mount-clone.js";

const ID = ["-c", "user.name=H", "-c", "user.email=h@test.invalid"];
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

function humanCommit(
  root: string,
  files: Record<string, string>,
  links: Record<string, string> = {},
) {
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  for (const [path, target] of Object.entries(links)) symlinkSync(target, join(root, path));
  gitSync(root, "add", "-A");
  gitSync(root, ...ID, "commit", "-qm", "human");
  gitSync(root, "push", "-q", "origin", "HEAD:main");
}

const note = (id: string, word: string) => `---\ntype: note\ntitle: ${id}\n---\n${word}\n`;
const hits = async (call: Call, query: string) =>
  (jsonOf(await call("search", { query })).results as { id: string }[]).map((r) => r.id);

describe("pulled paths", () => {
  it("a symlink in a pulled commit is skipped and logged; the rest is indexed; the write succeeds", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    const logger = memoryLogger();
    const { call } = await mountClone(b, cleanups, { logger });
    const human = clone(remote, "human");
    humanCommit(human, { "data/victim.md": note("victim", "pangolinword") });
    expect((await writeConcept(call, "first")).isError).toBeFalsy();
    expect(await hits(call, "pangolinword")).toEqual(["victim"]);

    // The victim becomes a symlink to a file outside data/; a good concept comes with it.
    gitSync(human, "pull", "-q", "origin", "main");
    gitSync(human, "rm", "-q", "data/victim.md");
    humanCommit(
      human,
      { "data/good.md": note("good", "okapiword") },
      { "data/victim.md": "../README.md", "data/evil.md": "/etc/passwd" },
    );

    const res = await writeConcept(call, "second");
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(await hits(call, "okapiword")).toEqual(["good"]);
    expect(await hits(call, "pangolinword")).toEqual([]);
    expect(logger.lines.join("\n")).toMatch(/'evil' is not indexed/);
    expect(remoteLog(remote)[0]).toBe("concept_write: second");
  }, 60_000);
});

describe("origin changes while serving", () => {
  it("an origin added after start is pushed to at the next write", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    gitSync(b, "remote", "remove", "origin");
    const { call } = await mountClone(b, cleanups);
    expect(jsonOf(await call("sync_status", {})).state).toBe("no_remote");
    gitSync(b, "remote", "add", "origin", remote.bare);
    gitSync(b, "fetch", "-q", "origin");
    const res = await writeConcept(call, "after-add");
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(remoteLog(remote)[0]).toBe("concept_write: after-add");
    expect(jsonOf(await call("sync_status", {})).state).toBe("clean");
  }, 30_000);

  it("an origin re-pointed to another remote is synced with from then on", async () => {
    const first = await newRemote();
    const b = clone(first, "b");
    // A second remote with the same history (a migration to another host).
    const second = join(first.dir, "second.git");
    gitSync(first.dir, "clone", "-q", "--bare", first.bare, second);
    const { call } = await mountClone(b, cleanups);
    expect((await writeConcept(call, "on-first")).isError).toBeFalsy();
    gitSync(b, "remote", "set-url", "origin", second);
    expect((await writeConcept(call, "on-second")).isError).toBeFalsy();
    const log = (bare: string) => gitSync(bare, "log", "--format=%s", "main").trim().split("\n");
    expect(log(second)[0]).toBe("concept_write: on-second");
    expect(log(first.bare)).not.toContain("concept_write: on-second");
  }, 30_000);
});

describe("autocommit off with sync", () => {
  it("a KB with an origin and git.autocommit false is refused at open, naming both keys", async () => {
    const remote = await newRemote();
    const b = clone(remote, "b");
    await expect(
      mountKb(
        {
          name: "kb",
          root: b,
          allowArtifactWrite: false,
          autocommit: false,
          sync: syncSettings(),
        },
        { logger: memoryLogger() },
      ),
    ).rejects.toThrow(
      /git\.autocommit: false cannot be combined with remote sync.*git\.sync: false/,
    );
  }, 30_000);
});
