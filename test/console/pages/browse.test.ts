/** Browse: maps the viewer sees, concepts 50 a page in id order, following "Next page" to the end. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  CONSOLE_FILES,
  type ConsoleServer,
  consoleServer,
  NARROW_TOKEN,
  signIn,
} from "../../support/console-kb.js";

const MANY: Record<string, string> = { ...CONSOLE_FILES };
for (let i = 0; i < 120; i++) {
  const n = String(i).padStart(3, "0");
  MANY[`data/public/n${n}.md`] = `---\ntype: note\ntitle: Note ${n}\n---\nbody ${n}\n`;
}

let s: ConsoleServer;
let admin: string;
let narrow: string;
beforeAll(async () => {
  s = await consoleServer({ files: MANY });
  admin = await signIn(s, ADMIN_TOKEN);
  narrow = await signIn(s, NARROW_TOKEN);
});
afterAll(async () => {
  await s.close();
});

function conceptLinks(body: string): string[] {
  return [...body.matchAll(/<li><a href="\/console\/kb\/c\/([^"]+)">/g)].map((m) => m[1] as string);
}

describe("browse", () => {
  it("pages a map 50 at a time, in id order, until the last page", async () => {
    const seen: string[] = [];
    let path: string | null = "/console/kb/browse?map=public";
    let pages = 0;
    while (path !== null) {
      const r = await s.get(path, { Cookie: admin });
      expect(r.status).toBe(200);
      const ids = conceptLinks(r.body);
      expect(ids.length).toBeLessThanOrEqual(50);
      seen.push(...ids);
      const next = /<a href="([^"]+)" rel="next">/.exec(r.body);
      path = next ? (next[1] as string).replaceAll("&amp;", "&") : null;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(122);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(122);
  });

  it("shows the maps the viewer may see; another map answers 404 like a missing one", async () => {
    const all = await s.get("/console/kb/browse", { Cookie: narrow });
    expect(all.body).toContain("Public notes");
    expect(all.body).not.toContain("Secret notes");
    const secret = await s.get("/console/kb/browse?map=secret", { Cookie: narrow });
    const missing = await s.get("/console/kb/browse?map=nothing", { Cookie: narrow });
    expect(secret.status).toBe(404);
    expect(secret.body).toBe(missing.body);
    expect((await s.get("/console/kb/browse?map=secret", { Cookie: admin })).status).toBe(200);
  });

  it("a KB the viewer cannot read, or that does not exist, answers the same 404", async () => {
    const r = await s.get("/console/other/browse", { Cookie: narrow });
    expect(r.status).toBe(404);
  });
});
