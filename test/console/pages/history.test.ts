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
