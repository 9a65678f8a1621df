/**
 * The conflicts page over HTTP with a real two-instance conflict (test/support/sync-remote.ts):
 * both sides' text side by side, the resolve form for an admin only, a POST without the CSRF token
 * or from another origin refused, and a resolution through `git_conflict_resolve`, audited with
 * transport `console`, answered by a 303 back to the list.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hiddenField } from "../../support/console-kb.js";
import {
  bareRemote,
  conflictBetweenTwo,
  type Instance,
  instance,
  type Remote,
} from "../../support/sync-remote.js";
import { GOV_ADMIN_TOKEN, GOV_NARROW_TOKEN, type GovServer, govServer } from "./gov-server.js";

let remote: Remote;
let a: Instance;
let s: GovServer;
let admin: string;
let narrow: string;
const ID = "shared/doc";

beforeAll(async () => {
  remote = await bareRemote();
  const started: Instance[] = [];
  const { a: first, b } = await conflictBetweenTwo(
    async (name, sync) => {
      const i = await instance(remote, name, sync);
      started.push(i);
      return i;
    },
    [{ id: ID, base: "base text\n", onB: "local side <i>B</i>\n", onA: "remote side A\n" }],
  );
  a = first;
  // The app adopts b's mount and closes it.
  s = await govServer({ mount: b.mount });
  admin = await s.cookie(GOV_ADMIN_TOKEN);
  narrow = await s.cookie(GOV_NARROW_TOKEN);
}, 90_000);
afterAll(async () => {
  await s?.close();
  await a?.close();
  await remote?.cleanup();
});

const page = (path: string, cookie: string) => s.get(path, { Cookie: cookie });

describe("conflicts page", () => {
  it("shows both sides' text side by side and the form to an admin", async () => {
    const r = await page("/console/kb/conflicts", admin);
    expect(r.status).toBe(200);
    expect(r.body).toContain("shared/doc");
    expect(r.body).toContain("local side &lt;i&gt;B&lt;/i&gt;");
    expect(r.body).toContain("remote side A");
    expect(r.body).toContain('class="sides"');
    expect(r.body).toContain('action="/console/kb/conflicts/shared/doc/resolve"');
  });

  it("shows a viewer who cannot see the concept nothing of it, and no form", async () => {
    const r = await page("/console/kb/conflicts", narrow);
    expect(r.status).toBe(200);
    expect(r.body).not.toContain("shared");
    expect(r.body).not.toContain("side A");
    expect(r.body).not.toContain('class="resolve"');
    expect(r.body).toContain("No conflict is registered.");
  });

  it("refuses a POST without the CSRF token, from another origin, or by a reader", async () => {
    const form = await page("/console/kb/conflicts", admin);
    const csrf = hiddenField(form.body, "_csrf");
    const path = "/console/kb/conflicts/shared/doc/resolve";
    const noToken = await s.post(path, { strategy: "theirs" }, { Cookie: admin });
    expect(noToken.status).toBe(403);
    const foreign = await s.post(
      path,
      { strategy: "theirs", _csrf: csrf },
      { Cookie: admin, Origin: "http://evil.example" },
    );
    expect(foreign.status).toBe(403);
    const narrowPage = await page("/console/kb/conflicts", narrow);
    const narrowCsrf = hiddenField(narrowPage.body, "_csrf");
    const reader = await s.post(
      path,
      { strategy: "theirs", _csrf: narrowCsrf },
      { Cookie: narrow },
    );
    expect(reader.status).toBe(403);
    expect((await page("/console/kb/conflicts", admin)).body).toContain("remote side A");
  });

  it("resolves through git_conflict_resolve, audited as console, and redirects with the outcome", async () => {
    const form = await page("/console/kb/conflicts", admin);
    const csrf = hiddenField(form.body, "_csrf");
    const r = await s.post(
      "/console/kb/conflicts/shared/doc/resolve",
      { strategy: "theirs", _csrf: csrf },
      { Cookie: admin },
    );
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe("/console/kb/conflicts?resolved=shared%2Fdoc");
    const after = await page(r.headers.location as string, admin);
    expect(after.body).toContain("Resolved the conflict on <code>shared/doc</code>");
    expect(after.body).toContain("No conflict is registered.");
    const text = await readFile(join(s.mount.settings.root, "data/shared/doc.md"), "utf8");
    expect(text).toContain("remote side A");
    const log = (await readFile(s.auditLog, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const done = log.find((e) => e.tool === "git_conflict_resolve" && e.phase === "completion");
    expect(done).toMatchObject({ transport: "console", principal_id: "admin", outcome: "success" });
  });
});
