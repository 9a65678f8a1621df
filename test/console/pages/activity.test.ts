/**
 * The activity page over HTTP: the feed newest first with each commit's audit record, filters
 * as a GET form, paging links, a 400 naming a malformed filter, and a narrow viewer's page holding
 * nothing it may not see (hidden commits absent, the mixed one retold).
 */
import { describe, expect, it } from "vitest";
import { type GovServer, HIDDEN, onGovServer } from "./gov-server.js";

let s: GovServer;
let admin: string;
let narrow: string;
onGovServer((g) => {
  ({ s, admin, narrow } = g);
});

const page = (path: string, cookie: string) => s.get(path, { Cookie: cookie });

describe("activity page", () => {
  it("lists commits newest first, each linked to its diff and its audit record", async () => {
    const r = await page("/console/main/activity", admin);
    expect(r.status).toBe(200);
    const batch = r.body.indexOf("concept_batch: alpha/mixed-visible and 1 more");
    const write = r.body.indexOf("concept_write: beta/secret-x");
    expect(batch).toBeGreaterThan(0);
    expect(write).toBeGreaterThan(batch);
    expect(r.body).toMatch(/href="\/console\/main\/commit\/[0-9a-f]{40}"/);
    expect(r.body).toContain(
      "by <strong>local-admin</strong> via concept_batch (in-memory), success",
    );
    expect(r.body).toMatch(/href="\/console\/main\/audit\?commit=[0-9a-f]{40}"/);
    expect(r.body).toContain('<label for="f-map">Map</label>');
  });

  it("answers 400 naming a malformed filter", async () => {
    const r = await page("/console/main/activity?since=yesterday", admin);
    expect(r.status).toBe(400);
    expect(r.body).toContain("since &quot;yesterday&quot; is not a date");
    expect((await page("/console/main/activity?map=..%2Fetc", admin)).status).toBe(400);
  });

  it("shows a narrow viewer only its visible commits, nothing hidden anywhere in the page", async () => {
    const r = await page("/console/main/activity", narrow);
    expect(r.status).toBe(200);
    expect(r.body).toContain("concept_batch: alpha/mixed-visible");
    expect(r.body).toContain("concept_write: alpha/public");
    for (const word of HIDDEN) expect(r.body, word).not.toContain(word);
  });

  it("answers a KB the viewer cannot read like a missing one", async () => {
    const missing = await page("/console/nope/activity", narrow);
    expect(missing.status).toBe(404);
  });
  it("filters by tool and map and pages with Older/Newer links", async () => {
    const maps = await page("/console/main/activity?tool=map_create", admin);
    expect(maps.body).toContain("map_create: alpha");
    expect(maps.body).not.toContain("concept_write:");
    const beta = await page("/console/main/activity?map=alpha&tool=concept_write", admin);
    expect(beta.body).toContain("concept_write: alpha/public");
    expect(beta.body).not.toContain("concept_write: beta/secret-x");
    for (let i = 0; i < 52; i++)
      await s.call("concept_write", {
        id: `alpha/n${i}`,
        frontmatter: { type: "note" },
        body: "n\n",
      });
    const first = await page("/console/main/activity", admin);
    expect(first.body.match(/class="commit"/g)).toHaveLength(50);
    const older = /rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replace(/&amp;/g, "&");
    expect(older).toBe("/console/main/activity?at=50");
    const second = await page(older as string, admin);
    expect(second.body).toContain("concept_write: alpha/n1");
    expect(second.body).toContain('rel="prev" href="/console/main/activity"');
  });
});
