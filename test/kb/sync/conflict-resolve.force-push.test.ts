/**
 * A conflict open while a human force-pushes the remote (to drop a leaked commit): resolving it
 * must not merge the rewritten remote with the history it dropped and push that back. The
 * resolution is refused with the diverged message, the registry is kept, the remote unchanged.
 */
import { describe, expect, it } from "vitest";
import {
  bareRemote,
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

describe("resolving a conflict after the remote was force-pushed", () => {
  it("is refused as diverged and pushes nothing back", async () => {
    remote = await bareRemote();
    const a = await start("a");
    const b = await start("b", { outDebounceMs: 60_000 });
    await a.call("map_create", { name: "shared", kind: "map" });
    await write(a, "shared/leak", "secret\n");
    await write(b, "shared/leak", "b side\n");
    await write(a, "shared/leak", "a side\n");
    expect(textOf(await write(b, "shared/next", "next\n"))).toMatch(/^conflict: .*shared\/leak/);

    // The human drops everything after the first commit and force-pushes that.
    const [root] = gitSync(remote.bare, "rev-list", "--max-parents=0", "main").trim().split("\n");
    gitSync(remote.bare, "update-ref", "refs/heads/main", root as string);
    const rewritten = remoteLog(remote);

    const got = await b.call("git_conflict_resolve", { id: "shared/leak", strategy: "ours" });
    expect(got.isError).toBe(true);
    expect(textOf(got)).toMatch(/diverged: .*cartographer kb resync kb/);
    expect(remoteLog(remote)).toEqual(rewritten);
    const left = jsonOf(await b.call("conflicts_list", {})).conflicts as unknown[];
    expect(left).toHaveLength(1);
  });
});
