/**
 * Conflicts that span several local commits, and the degraded marker.
 * b keeps two commits touching two concepts (its push is debounced for a minute) while a changes
 * both on the remote: every conflicting concept of the whole rebase is registered, each can be
 * resolved, and resolution through the tool always ends with b pulling and pushing again.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  bareRemote,
  conflictBetweenTwo,
  gitSync,
  type Instance,
  jsonOf,
  type Remote,
  remoteLog,
  textOf,
  useInstances,
  write,
} from "../../support/sync-remote.js";

let remote: Remote;
const start = useInstances(() => remote);

const ids = (list: unknown) => (list as { concept_id: string }[]).map((c) => c.concept_id).sort();
const openIds = async (i: Instance) => ids(jsonOf(await i.call("conflicts_list", {})).conflicts);
const fileOf = (i: Instance, id: string) => readFileSync(join(i.root, "data", `${id}.md`), "utf8");
const remoteFile = (id: string) => gitSync(remote.bare, "show", `main:data/${id}.md`);

/** b: one commit on s1, one on s2 (unpushed); a: both changed on the remote; b pulls. */
async function twoCommitConflict() {
  remote = await bareRemote();
  return conflictBetweenTwo(
    start,
    [
      { id: "shared/s1", base: "base 1\n", onB: "b 1\n", onA: "a 1\n" },
      { id: "shared/s2", base: "base 2\n", onB: "b 2\n", onA: "a 2\n" },
    ],
    "next\n",
  );
}

describe("multi-commit conflicts", () => {
  it("registers every conflicting concept of the whole rebase, not only the first commit's", async () => {
    const { b, res } = await twoCommitConflict();
    expect(textOf(res)).toMatch(/^conflict: .*shared\/s1.*shared\/s2/);
    expect(await openIds(b)).toEqual(["shared/s1", "shared/s2"]);
    expect(gitSync(b.root, "status", "--porcelain", "--untracked-files=no")).toMatch(
      /data\/shared\/s[12]\.md/,
    ); // only the degraded markers
    // Both concepts are refused as delete targets (concept_write is Go's procedure, let
    // through: conflicts-go-procedure.test.ts), another concept lands locally.
    expect(textOf(await b.call("concept_delete", { id: "shared/s2" }))).toMatch(/is in conflict/);
    expect((await write(b, "shared/other", "o\n")).isError).toBeFalsy();
  });

  it("resolving each registered concept finalizes, pushes, and the instance syncs again", async () => {
    const { a, b } = await twoCommitConflict();
    const first = jsonOf(
      await b.call("git_conflict_resolve", { id: "shared/s1", strategy: "ours" }),
    );
    expect(first).toMatchObject({ resolved: "shared/s1", open: ["shared/s2"], commit: null });
    const last = await b.call("git_conflict_resolve", { id: "shared/s2", strategy: "theirs" });
    expect(last.isError, textOf(last)).toBeFalsy();
    expect(jsonOf(last)).toMatchObject({ open: [] });
    expect(jsonOf(await b.call("sync_status", {}))).toMatchObject({
      state: "clean",
      conflicts: 0,
      unpushed: 0,
    });
    expect(remoteLog(remote)[0]).toBe("git_conflict_resolve: shared/s1, shared/s2");
    expect(remoteFile("shared/s1")).toContain("b 1");
    expect(remoteFile("shared/s2")).toContain("a 2");
    // b pulls again: a's later write reaches b; b's later write reaches the remote.
    await write(a, "shared/later-a", "la\n");
    await write(b, "shared/later-b", "lb\n");
    await b.call("sync_status", {});
    expect(remoteLog(remote)).toContain("concept_write: shared/later-b");
    expect(jsonOf(await b.call("concept_read", { id: "shared/later-a" })).body).toContain("la");
  });

  it("the remote changing another concept before finalize registers it instead of failing forever", async () => {
    const { a, b } = await twoCommitConflict();
    // b keeps writing a concept that was not in conflict, a changes it on the remote too.
    await write(a, "shared/s3", "base 3\n");
    await write(b, "shared/s3", "b 3\n");
    await write(a, "shared/s3", "a 3\n");
    await b.call("git_conflict_resolve", { id: "shared/s1", strategy: "theirs" });
    const res = await b.call("git_conflict_resolve", { id: "shared/s2", strategy: "theirs" });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(jsonOf(res)).toMatchObject({ open: ["shared/s3"], commit: null });
    expect(await openIds(b)).toEqual(["shared/s1", "shared/s2", "shared/s3"]);
    const done = await b.call("git_conflict_resolve", { id: "shared/s3", strategy: "ours" });
    expect(jsonOf(done)).toMatchObject({ open: [] });
    expect(jsonOf(await b.call("sync_status", {}))).toMatchObject({ state: "clean", unpushed: 0 });
    expect(remoteFile("shared/s3")).toContain("b 3");
  });

  it("a resolution merge not pushed yet survives the remote moving again (no re-conflict)", async () => {
    const { a, b } = await twoCommitConflict();
    await b.call("git_conflict_resolve", { id: "shared/s1", strategy: "ours" });
    await b.call("git_conflict_resolve", { id: "shared/s2", strategy: "ours" });
    // b's push is debounced: the merge commit is still local when a pushes again.
    expect(Number(gitSync(b.root, "rev-list", "--count", "--merges", "origin/main..HEAD"))).toBe(1);
    await write(a, "shared/unrelated", "u\n");
    const res = await write(b, "shared/after", "after\n");
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(await openIds(b)).toEqual([]);
    await b.call("sync_status", {});
    expect(remoteFile("shared/s1")).toContain("b 1");
    expect(remoteLog(remote)).toContain("concept_write: shared/after");
  });
});

describe("degraded marker", () => {
  it("status: degraded is written into a conflicting concept's frontmatter and removed on resolution", async () => {
    const { b } = await twoCommitConflict();
    for (const id of ["shared/s1", "shared/s2"]) {
      expect(fileOf(b, id)).toMatch(/^---\n(?:.*\n)*status: degraded\n(?:.*\n)*---\n/);
      const read = jsonOf(await b.call("concept_read", { id }));
      expect(read.degraded).toBe(true);
      expect((read.frontmatter as Record<string, unknown>).status).toBe("degraded");
    }
    // Never committed: HEAD holds b's own version, the marker lives in the work tree only.
    expect(gitSync(b.root, "show", "HEAD:data/shared/s1.md")).not.toContain("degraded");
    await b.call("git_conflict_resolve", { id: "shared/s1", strategy: "ours" });
    await b.call("git_conflict_resolve", {
      id: "shared/s2",
      strategy: "edit",
      body: "---\ntype: note\ntitle: shared/s2\nstatus: degraded\n---\nmerged 2\n",
    });
    for (const id of ["shared/s1", "shared/s2"]) {
      expect(fileOf(b, id)).not.toContain("degraded");
      expect(remoteFile(id)).not.toContain("degraded");
      const read = jsonOf(await b.call("concept_read", { id }));
      expect(read.degraded).toBeUndefined();
      expect((read.frontmatter as Record<string, unknown>).status).toBeUndefined();
    }
    expect(gitSync(b.root, "status", "--porcelain", "--untracked-files=no")).toBe("");
  });
});
