/**
 * The history page over HTTP: a visible concept's commits with links to their diffs; a hidden
 * concept answers the bytes of one that never existed.
 */
import { describe, expect, it } from "vitest";
import { type GovServer, onGovServer } from "./gov-server.js";

let s: GovServer;
let admin: string;
let narrow: string;
onGovServer((g) => {
  ({ s, admin, narrow } = g);
});

const page = (path: string, cookie: string) => s.get(path, { Cookie: cookie });

describe("history page", () => {
  it("lists a concept's commits, each linked to its diff", async () => {
    const r = await page("/console/main/c/alpha/public/history", narrow);
    expect(r.status).toBe(200);
    expect(r.body).toContain("History of");
    expect(r.body).toContain("concept_write: alpha/public");
    expect(r.body).toMatch(/href="\/console\/main\/commit\/[0-9a-f]{40}"/);
  });

  it("follows a rename, naming the older id to a viewer who may see it and to no other", async () => {
    await s.call("concept_write", {
      id: "alpha/was",
      frontmatter: { type: "note", title: "Moved note" },
      body: "x\n",
    });
    await s.call("concept_move", { from: "alpha/was", to: "alpha/now" });
    const r = await page("/console/main/c/alpha/now/history", admin);
    expect(r.status).toBe(200);
    expect(r.body).toContain("renamed from <code>alpha/was</code>");
    expect(r.body).toContain("as <code>alpha/was</code>");
    expect(r.body).toContain("concept_write: alpha/was");
    // NARROW reads notes only: the gone id has no type, so it is hidden and the history ends.
    const narrowPage = await page("/console/main/c/alpha/now/history", narrow);
    expect(narrowPage.status).toBe(200);
    expect(narrowPage.body).toContain("concept_move: alpha/now");
    expect(narrowPage.body).not.toContain("alpha/was");
  });

  it("refuses a malformed cursor with a 400 and a foreign one with the 404", async () => {
    expect((await page("/console/main/c/alpha/now/history?at=x", admin)).status).toBe(400);
    const foreign = await page(`/console/main/c/alpha/now/history?at=${"0".repeat(16)}-0`, admin);
    const missing = await page("/console/main/c/alpha/never/history", admin);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toBe(missing.body);
  });

  it("answers a hidden concept with the bytes of a missing one", async () => {
    expect((await page("/console/main/c/beta/secret-x/history", admin)).status).toBe(200);
    const hidden = await page("/console/main/c/beta/secret-x/history", narrow);
    const typed = await page("/console/main/c/alpha/in-task/history", narrow);
    const missing = await page("/console/main/c/alpha/never/history", narrow);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toBe(missing.body);
    expect(typed.body).toBe(missing.body);
  });
});
