/**
 * The activity, commit and audit pages name the call of a commit older than the audit window:
 * the server starts on a log whose first call made a KB commit, followed by more than 8 MiB of
 * later calls, and keeps appending to it. A narrow viewer sees the call only when it may see
 * what the call names (the audit page's rule), and nothing of a hidden one.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendTrail, fillerCalls } from "../../support/audit-trail.js";
import { commitFiles, git } from "../../support/kb.js";
import { GOV_ADMIN_TOKEN, GOV_NARROW_TOKEN, type GovServer, govServer } from "./gov-server.js";

let s: GovServer;
let admin: string;
let narrow: string;
let ancient: string;
let hidden: string;
beforeAll(async () => {
  s = await govServer({
    beforeStart: async (root, log) => {
      await commitFiles(
        root,
        {
          "data/alpha/_map.md": "---\ntype: Map\ntitle: Alpha\nkind: map\n---\n# Alpha\n",
          "data/alpha/ancient.md": "---\ntype: note\ntitle: Ancient\n---\nold\n",
        },
        "concept_write: alpha/ancient",
      );
      ancient = git(root, ["rev-parse", "HEAD"]);
      await commitFiles(
        root,
        { "data/alpha/ancient-task.md": "---\ntype: task\ntitle: Hidden task\n---\nold\n" },
        "concept_write: alpha/ancient-task",
      );
      hidden = git(root, ["rev-parse", "HEAD"]);
      await mkdir(dirname(log), { recursive: true });
      const old = (id: string, sha: string, principal: string) => ({
        kb: "main",
        principal,
        tool: "concept_write",
        commitSha: sha,
        resources: { id },
      });
      await appendTrail(log, [
        old("alpha/ancient", ancient, "ancient-editor"),
        old("alpha/ancient-task", hidden, "ancient-tasker"),
        ...fillerCalls(12_000),
      ]);
    },
  });
  // A call of the server itself: in the window, as before.
  await s.call("concept_write", {
    id: "alpha/recent",
    frontmatter: { type: "note", title: "Recent" },
    body: "new\n",
  });
  admin = await s.cookie(GOV_ADMIN_TOKEN);
  narrow = await s.cookie(GOV_NARROW_TOKEN);
}, 120_000);
afterAll(async () => s?.close());

const page = (path: string, cookie: string) => s.get(path, { Cookie: cookie });

/** Reloads while the index of older records is being built (it starts on the first look). */
async function indexed(path: string, cookie: string) {
  for (let i = 0; i < 100; i++) {
    const r = await page(path, cookie);
    if (!r.body.includes("older records are still being indexed")) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("the index was never built");
}

describe("calls older than the audit window", () => {
  it("are named on the activity and commit pages, linked by commit", async () => {
    const feed = await indexed("/console/main/activity", admin);
    expect(feed.body).toContain(
      "by <strong>ancient-editor</strong> via concept_write (http), success",
    );
    expect(feed.body).toContain(`href="/console/main/audit?commit=${ancient}"`);
    expect(feed.body).toContain("by <strong>local-admin</strong> via concept_write (in-memory)");
    const commit = await indexed(`/console/main/commit/${ancient}`, admin);
    expect(commit.body).toContain("by <strong>ancient-editor</strong>");
  });

  it("open on the audit page by commit, as the viewer may see them", async () => {
    const r = await indexed(`/console/main/audit?commit=${ancient}`, admin);
    expect(r.status).toBe(200);
    expect(r.body).toContain("ancient-editor");
    expect(r.body).toContain("id=alpha/ancient");
    expect((await page(`/console/main/audit?commit=${ancient}`, narrow)).body).toContain(
      "ancient-editor",
    );
    // alpha/ancient-task is a task: NARROW sees neither its commit nor its call.
    const shown = await page(`/console/main/audit?commit=${hidden}`, narrow);
    const none = await page(`/console/main/audit?commit=${"0".repeat(40)}`, narrow);
    expect(shown.body).not.toContain("ancient-tasker");
    expect(shown.body.replaceAll(hidden.slice(0, 10), "")).toBe(
      none.body.replaceAll("0".repeat(10), ""),
    );
    expect((await page(`/console/main/commit/${hidden}`, narrow)).status).toBe(404);
    expect((await page("/console/main/audit?commit=abc", admin)).status).toBe(400);
  });

  it("are found by the principal filter", async () => {
    const r = await indexed("/console/main/activity?principal=ancient-editor", admin);
    expect(r.body).toContain("concept_write: alpha/ancient");
    expect(r.body).not.toContain("concept_write: alpha/recent");
  });
});
