/**
 * The concept page through real HTTP against a real KB: Markdown rendered with links resolved,
 * a hidden target as plain text, frontmatter escaped, backlinks on request, and missing ≡ hidden.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  type ConsoleServer,
  consoleServer,
  NARROW_TOKEN,
  signIn,
} from "../../support/console-kb.js";

let s: ConsoleServer;
let admin: string;
let narrow: string;
beforeAll(async () => {
  s = await consoleServer();
  admin = await signIn(s, ADMIN_TOKEN);
  narrow = await signIn(s, NARROW_TOKEN);
});
afterAll(async () => {
  await s.close();
});

describe("concept page", () => {
  it("renders the body with wiki, relative and asset links resolved to console URLs", async () => {
    const r = await s.get("/console/kb/c/public/welcome", { Cookie: admin });
    expect(r.status).toBe(200);
    expect(r.body).toContain("<h1>Welcome page</h1>");
    expect(r.body).toContain('<a class="wikilink" href="/console/kb/c/public/second"');
    expect(r.body).toContain('<a class="wikilink" href="/console/kb/c/secret/plans"');
    expect(r.body).toContain('<img src="/console/kb/asset/data/assets/dot.png" alt="diagram"');
    const second = await s.get("/console/kb/c/public/second", { Cookie: admin });
    expect(second.body).toContain('<a href="/console/kb/c/public/welcome"');
  });

  it("a narrow reader sees the hidden target as plain text, and never its title", async () => {
    const r = await s.get("/console/kb/c/public/welcome", { Cookie: narrow });
    expect(r.status).toBe(200);
    expect(r.body).toContain('<span class="missing-link">secret/plans</span>');
    expect(r.body).not.toContain("/console/kb/c/secret/plans");
    expect(r.body).not.toContain("Covert zeppelin");
  });

  it("backlinks and neighbours on request, filtered for the viewer", async () => {
    const asAdmin = await s.get("/console/kb/c/public/welcome?links=1", { Cookie: admin });
    expect(asAdmin.body).toContain("<h2>Backlinks</h2>");
    expect(asAdmin.body).toContain("Covert zeppelin plans");
    const asNarrow = await s.get("/console/kb/c/public/welcome?links=1", { Cookie: narrow });
    expect(asNarrow.body).toContain("<h2>Backlinks</h2>");
    expect(asNarrow.body).toContain("Second page");
    expect(asNarrow.body).not.toContain("Covert zeppelin");
    expect(asNarrow.body).not.toContain('secret/plans"');
  });

  it("a hidden concept answers exactly what a missing one does", async () => {
    const hidden = await s.get("/console/kb/c/secret/plans", { Cookie: narrow });
    const missing = await s.get("/console/kb/c/secret/nothing-here", { Cookie: narrow });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toBe(missing.body);
    expect((await s.get("/console/kb/c/secret/plans", { Cookie: admin })).status).toBe(200);
  });
});
