/**
 * KB overview and home: the concept counts (kept until the index changes) are each viewer's own,
 * and a write shows on the next page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callSurface } from "../../support/call-tool.js";
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

/** The KB card's concept count and each listed map's count. */
async function counts(path: string, cookie: string): Promise<{ kb: number; maps: string[] }> {
  const r = await s.get(path, { Cookie: cookie });
  expect(r.status).toBe(200);
  const kb = /<dt>Concepts<\/dt><dd>(\d+)<\/dd>/.exec(r.body)?.[1];
  const maps = [...r.body.matchAll(/browse\?map=(\w+)".*?<span class="count">(\d+) concepts/g)].map(
    (m) => `${m[1]}=${m[2]}`,
  );
  return { kb: Number(kb), maps };
}

describe("KB overview counts", () => {
  it("two principals see their own counts, in either order and again", async () => {
    for (let round = 0; round < 2; round++) {
      expect(await counts("/console/kb", admin)).toEqual({
        kb: 3,
        maps: ["public=2", "secret=1"],
      });
      expect(await counts("/console/kb", narrow)).toEqual({ kb: 2, maps: ["public=2"] });
      expect((await counts("/", narrow)).kb).toBe(2);
      expect((await counts("/", admin)).kb).toBe(3);
    }
  });

  it("a write changes the count on the next page, for each principal as it sees it", async () => {
    expect(await counts("/console/kb", narrow)).toEqual({ kb: 2, maps: ["public=2"] });
    const surface = s.app.surfaces.get("kb");
    if (surface === undefined) throw new Error("no surface for kb");
    for (const id of ["secret/more", "public/more"]) {
      const r = await callSurface(surface, "concept_write", {
        id,
        frontmatter: { type: "note", title: `More ${id}` },
        body: "Written after the first view.",
      });
      expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
    }
    expect(await counts("/console/kb", narrow)).toEqual({ kb: 3, maps: ["public=3"] });
    expect(await counts("/console/kb", admin)).toEqual({ kb: 5, maps: ["public=3", "secret=2"] });
    expect((await counts("/", narrow)).kb).toBe(3);
  });
});
