/**
 * Conflicts as a narrow principal meets them: sync errors name only the concepts the
 * caller may see, and git_conflict_resolve checks the frontmatter it writes as
 * concept_write does — validation and authorization of the resulting type.
 */
import { describe, expect, it } from "vitest";
import type { Principal } from "../../../src/auth/types.js";
import { visibleSyncText } from "../../../src/tools/support/sync-visibility.js";
import { principal } from "../../support/mcp-kit.js";
import {
  bareRemote,
  gitSync,
  type Instance,
  jsonOf,
  type Remote,
  textOf,
  useInstances,
  write,
} from "../../support/sync-remote.js";

let remote: Remote;
const start = useInstances(() => remote);

const as = (i: Instance, p: Principal, tool: string, args: Record<string, unknown>) =>
  i.surface.callTool(tool, args, { principal: p, transport: "in-memory", requestId: "" });

/** Writers of the `open` map only, one of them limited to notes. */
const openWriter = principal("open-rw", [{ kb: "kb", access: "rw", maps: ["open"] }]);
const noteWriter = principal("notes", [
  { kb: "kb", access: "rw", maps: ["open"], types: ["note"] },
]);

/** b holds unpushed edits of `ids`, a changed each on the remote; nothing pulled yet. */
async function pending(ids: string[], remoteType = "note") {
  remote = await bareRemote();
  const a = await start("a");
  const b = await start("b", { outDebounceMs: 60_000 });
  await a.call("map_create", { name: "open", kind: "map" });
  await a.call("map_create", { name: "vault", kind: "map" });
  for (const id of ids) await write(a, id, "base\n");
  for (const id of ids) await write(b, id, "from b\n");
  for (const id of ids)
    await a.call("concept_write", {
      id,
      frontmatter: { type: remoteType, title: id },
      body: "a\n",
    });
  return { a, b };
}

describe("sync errors through the caller's visibility", () => {
  it("a pull that conflicts on a hidden concept names nothing hidden; the write lands locally", async () => {
    const { b } = await pending(["vault/s1"]);
    const res = await as(b, openWriter, "concept_write", {
      id: "open/x",
      frontmatter: { type: "note", title: "x" },
      body: "x\n",
    });
    expect(textOf(res)).not.toMatch(/vault/);
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(jsonOf(res)).toMatchObject({ sync_state: "failed" });
    // The admin is told, by name.
    expect(jsonOf(await b.call("conflicts_list", {})).total).toBe(1);
    const admin = await write(b, "open/y", "y\n");
    expect(textOf(admin)).toMatch(/"last_error":"conflict: vault\/s1"/);
    // A later write of the narrow principal: the note says a conflict holds pushes, not which.
    const again = await as(b, openWriter, "concept_write", {
      id: "open/z",
      frontmatter: { type: "note", title: "z" },
      body: "z\n",
    });
    expect(textOf(again)).not.toMatch(/vault/);
    expect(jsonOf(again).last_error).toMatch(/^conflict: /);
  });

  it("a pull that conflicts on visible and hidden concepts names only the visible ones", async () => {
    const { b } = await pending(["open/c", "vault/s1"]);
    const res = await as(b, openWriter, "concept_write", {
      id: "open/x",
      frontmatter: { type: "note", title: "x" },
      body: "x\n",
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/^conflict: the remote changed open\/c differently/);
    expect(textOf(res)).not.toMatch(/vault/);
  });

  it("a git message names a hidden concept's path as (hidden), a visible one as is", async () => {
    const { b } = await pending([]);
    await write(b, "open/c", "c\n"); // pulls the maps
    const open = { all: false, rules: [{ maps: ["open"], journals: [], types: [] }] };
    const text =
      "pull: git rebase failed: error: untracked files would be overwritten: data/vault/s1.md data/open/c.md";
    expect(await visibleSyncText(b.mount.runtime, open, text)).toBe(
      "pull: git rebase failed: error: untracked files would be overwritten: (hidden) data/open/c.md",
    );
    expect(await visibleSyncText(b.mount.runtime, { all: true }, text)).toBe(text);
    expect(await visibleSyncText(b.mount.runtime, open, "conflict: vault/s1, open/c")).toBe(
      "conflict: open/c",
    );
  });

  it("git_conflict_resolve answers only the open conflicts the caller may see", async () => {
    const { b } = await pending(["open/c", "vault/s1"]);
    expect((await write(b, "open/trigger", "t\n")).isError).toBe(true);
    const res = await as(b, openWriter, "git_conflict_resolve", { id: "open/c", strategy: "ours" });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res)).not.toMatch(/vault/);
    expect(jsonOf(res)).toMatchObject({ resolved: "open/c", open: [], commit: null });
    // Still open for the admin.
    expect(jsonOf(await b.call("conflicts_list", {})).total).toBe(2);
  });
});

describe("git_conflict_resolve edit: concept_write's checks", () => {
  async function registered(remoteType = "note") {
    const { a, b } = await pending(["open/c"], remoteType);
    expect((await write(b, "open/trigger", "t\n")).isError).toBe(true);
    return { a, b };
  }

  it("a principal limited to notes cannot turn the concept into a service", async () => {
    const { b } = await registered();
    const res = await as(b, noteWriter, "git_conflict_resolve", {
      id: "open/c",
      strategy: "edit",
      body: "---\ntype: service\ntitle: c\n---\nnow a service\n",
    });
    expect(textOf(res)).toBe("forbidden");
    expect(jsonOf(await b.call("conflicts_list", {})).conflicts).toEqual([
      expect.objectContaining({ concept_id: "open/c", resolved: false }),
    ]);
    const ok = await as(b, noteWriter, "git_conflict_resolve", {
      id: "open/c",
      strategy: "edit",
      body: "---\ntype: note\ntitle: c\n---\nmerged\n",
    });
    expect(ok.isError, textOf(ok)).toBeFalsy();
    expect(gitSync(b.root, "show", "HEAD:data/open/c.md")).toContain("merged");
  });

  it("picking the side that made it a service is judged the same way", async () => {
    const { b } = await registered("service");
    const res = await as(b, noteWriter, "git_conflict_resolve", {
      id: "open/c",
      strategy: "theirs",
    });
    expect(textOf(res)).toBe("forbidden");
    const ours = await as(b, noteWriter, "git_conflict_resolve", {
      id: "open/c",
      strategy: "ours",
    });
    expect(ours.isError, textOf(ours)).toBeFalsy();
  });

  it("an edit body is validated: frontmatter that concept_write refuses is refused", async () => {
    const { b } = await registered();
    for (const body of [
      "no frontmatter at all\n",
      "---\ntitle: no type\n---\nx\n",
      "---\ntype: note\nnever closed\n",
      "---\ntype: note\nbad key!: 1\n---\nx\n",
    ]) {
      const res = await b.call("git_conflict_resolve", { id: "open/c", strategy: "edit", body });
      expect(res.isError, `${body} → ${textOf(res)}`).toBe(true);
      expect(textOf(res)).toMatch(/^(invalid_frontmatter|validation_failed|invalid_argument):/);
    }
    expect(jsonOf(await b.call("conflicts_list", {})).conflicts).toEqual([
      expect.objectContaining({ resolved: false }),
    ]);
  });
});
