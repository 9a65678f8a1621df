/**
 * Conflicts (docs/sync.md "Conflicts"): the same concept edited on two instances. The second
 * write's rebase conflicts: it answers `conflict` naming the id, the rebase is aborted, the concept
 * is registered in .cartographer/conflicts.json, both versions stay in git, and
 * git_conflict_resolve finalizes with one merge commit that reaches the remote.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { healthBody } from "../../../src/http/meta.js";
import { silentLogger } from "../../../src/logger.js";
import { createCartographer } from "../../../src/mcp/app.js";
import { principal } from "../../support/mcp-kit.js";
import {
  bareRemote,
  conflictBetweenTwo,
  gitSync,
  jsonOf,
  type Remote,
  remoteLog,
  textOf,
  useInstances,
  write,
} from "../../support/sync-remote.js";

let remote: Remote;
const start = useInstances(() => remote);

/**
 * b edits `shared/doc` and keeps the commit (its push is debounced for a minute); a edits it too
 * and pushes; b's next write pulls, and the rebase of b's commit conflicts.
 */
async function conflicted() {
  remote = await bareRemote();
  return conflictBetweenTwo(start, [
    { id: "shared/doc", base: "original\n", onB: "edited on b\n", onA: "edited on a\n" },
  ]);
}

describe("conflicts", () => {
  it("the losing write answers conflict naming the id; nothing is lost", async () => {
    const { b, res } = await conflicted();
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/^conflict: .*shared\/doc.*git_conflict_resolve/);
    // The rebase was aborted: b's tree holds b's last committed state, plus the concept's
    // `status: degraded` marker (docs/decisions.md "`status: degraded` lives in the work tree
    // only"), never committed.
    expect(gitSync(b.root, "status", "--porcelain")).toBe(" M data/shared/doc.md\n");
    expect(gitSync(b.root, "diff")).toMatch(/^\+status: degraded$/m);
    expect(existsSync(join(b.root, ".git", "rebase-merge"))).toBe(false);
    const registry = JSON.parse(
      readFileSync(join(b.root, ".cartographer", "conflicts.json"), "utf8"),
    );
    const [entry] = registry.conflicts;
    expect(entry).toMatchObject({ concept_id: "shared/doc", path: "data/shared/doc.md" });
    expect(entry.files).toEqual(["data/shared/doc.md"]);
    for (const k of ["local_sha", "remote_sha", "detected_at"]) expect(entry[k]).toBeTruthy();
    // Both sides reachable from git.
    expect(gitSync(b.root, "show", `${entry.remote_sha}:data/shared/doc.md`)).toContain(
      "edited on a",
    );
    const listed = jsonOf(await b.call("conflicts_list", {}));
    expect(listed.total).toBe(1);
    const status = jsonOf(await b.call("sync_status", {}));
    expect(status).toMatchObject({ state: "failed", conflicts: 1 });
    // A read of the concept says it is degraded; another concept's read does not.
    expect(jsonOf(await b.call("concept_read", { id: "shared/doc" })).degraded).toBe(true);
    // /health: the KB is served but degraded, with the count.
    const app = await createCartographer({ mounts: [b.mount], logger: silentLogger });
    expect(healthBody({ version: "t", kbs: app.kbs, ready: true }).kbs).toEqual([
      expect.objectContaining({ name: "kb", status: "degraded", conflicts: 1 }),
    ]);
    // A further delete of that concept is refused (concept_write is Go's procedure, let through:
    // conflicts-go-procedure.test.ts); another concept still lands locally.
    expect(textOf(await b.call("concept_delete", { id: "shared/doc" }))).toMatch(
      /^conflict: shared\/doc is in conflict/,
    );
    expect((await write(b, "shared/other")).isError).toBeFalsy();
  });

  it("conflicts_list shows a principal only conflicts on concepts it can see", async () => {
    const { b } = await conflicted();
    const ctx = (p: ReturnType<typeof principal>) => ({
      principal: p,
      transport: "in-memory" as const,
      requestId: "",
    });
    const seer = principal("seer", [{ kb: "kb", access: "r", maps: ["shared"] }]);
    const blind = principal("blind", [{ kb: "kb", access: "r", maps: ["elsewhere"] }]);
    const seen = jsonOf(await b.surface.callTool("conflicts_list", {}, ctx(seer)));
    const hidden = jsonOf(await b.surface.callTool("conflicts_list", {}, ctx(blind)));
    expect(seen.total).toBe(1);
    expect(hidden).toEqual({ conflicts: [], total: 0 });
    const resolveHidden = await b.surface.callTool(
      "git_conflict_resolve",
      { id: "shared/doc", strategy: "ours" },
      ctx(principal("w", [{ kb: "kb", access: "rw", maps: ["elsewhere"] }])),
    );
    expect(textOf(resolveHidden)).toBe("not found");
  });

  it.each([
    ["theirs", "edited on a"],
    ["ours", "edited on b"],
    ["edit", "merged by hand"],
  ] as const)(
    "git_conflict_resolve %s: one merge commit, pushed; registry emptied",
    async (strategy, expected) => {
      const { a, b } = await conflicted();
      const body =
        strategy === "edit"
          ? "---\ntype: note\ntitle: shared/doc\n---\nmerged by hand\n"
          : undefined;
      const res = await b.call("git_conflict_resolve", {
        id: "shared/doc",
        strategy,
        ...(body ? { body } : {}),
      });
      expect(res.isError, textOf(res)).toBeFalsy();
      const out = jsonOf(res);
      expect(out).toMatchObject({ resolved: "shared/doc", open: [] });
      expect(out.sync_state).toBe("pending"); // b's pushes are debounced
      await b.call("sync_status", {}); // flushes
      expect(remoteLog(remote)[0]).toBe("git_conflict_resolve: shared/doc");
      expect(gitSync(remote.bare, "show", "main:data/shared/doc.md")).toContain(expected);
      expect(jsonOf(await b.call("conflicts_list", {})).total).toBe(0);
      expect(jsonOf(await b.call("sync_status", {}))).toMatchObject({
        state: "clean",
        conflicts: 0,
      });
      // a pulls the resolution (a read starts the pull in the background).
      await expect
        .poll(async () => String(jsonOf(await a.call("concept_read", { id: "shared/doc" })).body))
        .toContain(expected);
    },
  );
});
