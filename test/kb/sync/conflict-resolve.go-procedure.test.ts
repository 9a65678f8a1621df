/**
 * Go's conflict procedure (its kb-conflict-resolve skill) works here: read conflicts_list (Go's
 * fields too: branch, files, guidance), read the concept, write the reconciled version with
 * concept_write (not refused), then git_conflict_resolve {concept_id, strategy: ours} takes the
 * written version into one merge commit that reaches the remote. Other writes to a conflicted
 * concept (delete, move) stay refused.
 */
import { describe, expect, it } from "vitest";
import {
  bareRemote,
  conflictBetweenTwo,
  jsonOf,
  type Remote,
  remoteLog,
  textOf,
  useInstances,
  write,
} from "../../support/sync-remote.js";

let remote: Remote;
const start = useInstances(() => remote);

async function conflicted() {
  remote = await bareRemote();
  const { a, b, res } = await conflictBetweenTwo(start, [
    { id: "shared/doc", base: "original\n", onB: "edited on b\n", onA: "edited on a\n" },
  ]);
  expect(textOf(res)).toMatch(/^conflict: /);
  return { a, b };
}

describe("Go's conflict procedure", () => {
  it("conflicts_list → concept_write of the reconciled body → git_conflict_resolve ours", async () => {
    const { b } = await conflicted();
    const listed = jsonOf(await b.call("conflicts_list", {}));
    const [entry] = listed.conflicts as Record<string, unknown>[];
    expect(entry).toMatchObject({
      concept_id: "shared/doc",
      path: "data/shared/doc.md",
      branch: "main",
      files: ["data/shared/doc.md"],
      resolved: false,
      guidance: expect.stringMatching(/concept_write.*git_conflict_resolve/),
    });
    for (const k of ["local_sha", "remote_sha", "detected_at"]) expect(entry?.[k]).toBeTruthy();

    // The other writes to a conflicted concept stay refused.
    const moved = await b.call("concept_move", { from: "shared/doc", to: "shared/elsewhere" });
    expect(textOf(moved)).toMatch(/^conflict: shared\/doc is in conflict/);

    const written = await write(b, "shared/doc", "reconciled: a and b\n");
    expect(written.isError, textOf(written)).toBeFalsy();
    // Still open until git_conflict_resolve (Go's tool, Go's argument name).
    expect(jsonOf(await b.call("conflicts_list", {})).total).toBe(1);
    const resolved = await b.call("git_conflict_resolve", {
      concept_id: "shared/doc",
      strategy: "ours",
    });
    expect(resolved.isError, textOf(resolved)).toBeFalsy();
    expect(jsonOf(resolved)).toMatchObject({ resolved: "shared/doc", open: [] });
    expect(jsonOf(await b.call("conflicts_list", {}))).toEqual({ conflicts: [], total: 0 });
    expect(remoteLog(remote)[0]).toBe("git_conflict_resolve: shared/doc");
    const read = jsonOf(await b.call("concept_read", { id: "shared/doc" }));
    expect(read.body).toBe("reconciled: a and b\n");
    expect(read.frontmatter).not.toHaveProperty("status");
  });
});
