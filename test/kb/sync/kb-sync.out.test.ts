/**
 * Sync-out (docs/sync.md "Sync out"): a write's commit reaches the remote — inline when
 * out_debounce is 0, as one push per burst otherwise; a push failure never fails the call (the
 * result says pending/failed), and a non-fast-forward push is rebased and retried.
 */
import { renameSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  bareRemote,
  gitSync,
  jsonOf,
  type Remote,
  remoteLog,
  useInstances,
  write,
} from "../../support/sync-remote.js";

let remote: Remote;
const start = useInstances(() => remote);

describe("sync-out", () => {
  it("out_debounce 0: the write is on the remote when the call returns, one commit", async () => {
    remote = await bareRemote();
    const a = await start("a");
    const res = await write(a, "notes/one");
    expect(res.isError).toBeFalsy();
    expect(jsonOf(res).sync_state).toBeUndefined(); // landed: nothing to report
    expect(remoteLog(remote)[0]).toBe("concept_write: notes/one");
  });

  it("a burst within out_debounce becomes one push", async () => {
    remote = await bareRemote();
    const a = await start("a", { outDebounceMs: 2_000 });
    for (const n of [1, 2, 3]) {
      const res = await write(a, `notes/b${n}`);
      expect(jsonOf(res).sync_state).toBe("pending");
    }
    expect(remoteLog(remote)[0]).not.toMatch(/notes\/b/);
    await expect
      .poll(() => remoteLog(remote)[0], { timeout: 5_000 })
      .toBe("concept_write: notes/b3");
    expect(remoteLog(remote).filter((s) => s.includes("notes/b"))).toHaveLength(3);
  });

  it("remote down: the write succeeds locally with sync_state failed; it drains when back", async () => {
    remote = await bareRemote();
    const a = await start("a");
    renameSync(remote.bare, `${remote.bare}.away`);
    const res = await write(a, "notes/offline");
    expect(res.isError).toBeFalsy();
    const body = jsonOf(res);
    expect(body.sync_state).toBe("failed");
    expect(String(body.last_error)).toMatch(/push/);
    expect(String(body.last_error)).not.toContain(remote.dir); // no server path
    renameSync(`${remote.bare}.away`, remote.bare);
    await expect
      .poll(() => remoteLog(remote)[0], { timeout: 15_000, interval: 200 })
      .toBe("concept_write: notes/offline");
  });

  it("non-fast-forward: fetch + rebase + retry; both writes end on the remote", async () => {
    remote = await bareRemote();
    const a = await start("a", { inWindowMs: 3_600_000 });
    const b = await start("b", { inWindowMs: 3_600_000 });
    // a's first call pulls (nothing new), then b pushes: a is now behind without knowing it.
    await write(a, "notes/from-a-0");
    await write(b, "notes/from-b");
    const res = await write(a, "notes/from-a");
    expect(res.isError).toBeFalsy();
    expect(jsonOf(res).sync_state).toBeUndefined();
    const log = remoteLog(remote);
    expect(log).toContain("concept_write: notes/from-b");
    expect(log[0]).toBe("concept_write: notes/from-a");
    expect(gitSync(a.root, "status", "--porcelain")).toBe("");
  });
});
