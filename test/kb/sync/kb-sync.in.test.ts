/**
 * Sync-in (docs/sync.md "Sync in"): a call pulls when the last pull is older than in_window, and
 * the index follows exactly the changed paths; within the window no pull happens; an unreachable
 * remote serves the local tree; the background poll keeps an idle instance fresh.
 */
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  bareRemote,
  gitSync,
  type Instance,
  jsonOf,
  type Remote,
  useInstances,
  write,
} from "../../support/sync-remote.js";

let remote: Remote;
const start = useInstances(() => remote);

const hits = async (i: Instance, query: string) =>
  (jsonOf(await i.call("search", { query })).results as { id: string }[]).map((r) => r.id);

/** A human edits and pushes from their own clone. */
function humanPush(remote: Remote, id: string, text: string) {
  const human = join(remote.dir, `human-${id.replace(/\//g, "-")}`);
  gitSync(remote.dir, "clone", "-q", remote.bare, human);
  writeFileSync(join(human, "data", `${id}.md`), `---\ntype: note\ntitle: ${id}\n---\n${text}\n`);
  gitSync(human, "add", "-A");
  gitSync(human, "-c", "user.name=Human", "-c", "user.email=h@x", "commit", "-qm", `human: ${id}`);
  gitSync(human, "push", "-q", "origin", "HEAD:main");
}

describe("sync-in", () => {
  it("in_window 0: a read starts the pull in the background; the index then finds the concept", async () => {
    remote = await bareRemote();
    const b = await start("b");
    humanPush(remote, "pulled", "zebracorn appears");
    // Reads never wait on the network: the pulled concept shows up moments after the first one.
    await expect.poll(() => hits(b, "zebracorn"), { timeout: 5_000 }).toEqual(["pulled"]);
    const read = jsonOf(await b.call("concept_read", { id: "pulled" }));
    expect(String(read.body)).toContain("zebracorn");
  });

  it("within in_window no pull happens; after it, one does", async () => {
    remote = await bareRemote();
    const b = await start("b", { inWindowMs: 2_500 });
    await b.call("kb_status", {}); // first call pulls
    humanPush(remote, "later", "quokkafish");
    expect(await hits(b, "quokkafish")).toEqual([]);
    await new Promise((r) => setTimeout(r, 2_600));
    await expect.poll(() => hits(b, "quokkafish"), { timeout: 5_000 }).toEqual(["later"]);
  });

  it("a write pulls and rebases its commit on top of the remote's", async () => {
    remote = await bareRemote();
    const b = await start("b");
    humanPush(remote, "human-one", "x");
    const res = await write(b, "mine");
    expect(res.isError).toBeFalsy();
    const log = gitSync(remote.bare, "log", "--format=%s", "main").trim().split("\n");
    expect(log.slice(0, 2)).toEqual(["concept_write: mine", "human: human-one"]);
  });

  it("remote down: reads are served from the local tree, writes land locally", async () => {
    remote = await bareRemote();
    const b = await start("b");
    await write(b, "before");
    renameSync(remote.bare, `${remote.bare}.away`);
    const read = await b.call("concept_read", { id: "before" });
    expect(read.isError).toBeFalsy();
    const res = await write(b, "during");
    expect(res.isError).toBeFalsy();
    const status = jsonOf(await b.call("sync_status", {}));
    expect(status.state).toBe("failed");
    expect(status.unpushed).toBe(1);
    expect(String(status.last_error)).not.toContain(remote.dir);
    renameSync(`${remote.bare}.away`, remote.bare);
    const after = jsonOf(await b.call("sync_status", {})); // flushes first
    expect(after).toMatchObject({ state: "clean", unpushed: 0 });
  });

  it("the background poll refreshes an idle instance's index", async () => {
    remote = await bareRemote();
    const b = await start("b", { inWindowMs: 3_600_000, pollMs: 200 });
    humanPush(remote, "polled", "wombatjelly");
    await expect
      .poll(
        () =>
          JSON.stringify(
            b.mount.index.search({ query: "wombatjelly", limit: 5, visibility: { all: true } }),
          ),
        { timeout: 5_000 },
      )
      .toContain('"polled"');
  });
});
