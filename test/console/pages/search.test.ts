/** Search: the search tool's results as the viewer, nothing hidden ranked or counted. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  type ConsoleServer,
  consoleServer,
  NARROW_TOKEN,
  signIn,
} from "../../support/console-kb.js";

let s: ConsoleServer;
beforeAll(async () => {
  s = await consoleServer();
});
afterAll(async () => {
  await s.close();
});

describe("search page", () => {
  it("lists hits with their titles and escaped snippets, linking to the concept", async () => {
    const admin = await signIn(s, ADMIN_TOKEN);
    const r = await s.get("/console/kb/search?q=zeppelin", { Cookie: admin });
    expect(r.status).toBe(200);
    expect(r.body).toContain('<a href="/console/kb/c/secret/plans">Covert zeppelin plans</a>');
    expect(r.body).toContain("1 results");
    expect(r.body).toContain('value="zeppelin"');
  });

  it("a narrow reader gets no hit from what it cannot see", async () => {
    const narrow = await signIn(s, NARROW_TOKEN);
    const r = await s.get("/console/kb/search?q=zeppelin", { Cookie: narrow });
    expect(r.body).toContain("No results");
    expect(r.body).not.toContain("Covert");
  });

  it("the query is escaped where it is echoed", async () => {
    const admin = await signIn(s, ADMIN_TOKEN);
    const r = await s.get(`/console/kb/search?q=${encodeURIComponent('"><script>x</script>')}`, {
      Cookie: admin,
    });
    expect(r.status).toBe(200);
    expect(r.body).not.toContain("<script>x");
    expect(r.body).toContain("&quot;&gt;&lt;script&gt;x&lt;/script&gt;");
  });
});
