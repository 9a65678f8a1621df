/**
 * The commit page over HTTP: an escaped diff with added and removed lines classed; for a narrow
 * viewer only the visible files of a mixed commit, and the same 404 bytes for a hidden commit as
 * for one that does not exist.
 */
import { describe, expect, it } from "vitest";
import { git } from "../../support/kb.js";
import { type GovServer, HIDDEN, onGovServer } from "./gov-server.js";

let s: GovServer;
let admin: string;
let narrow: string;
const shaOf = (subject: string) =>
  git(s.mount.settings.root, ["log", "--format=%H", "-F", `--grep=${subject}`, "-n", "1"]);
onGovServer((g) => {
  ({ s, admin, narrow } = g);
});

const page = (path: string, cookie: string) => s.get(path, { Cookie: cookie });

describe("commit page", () => {
  it("renders the diff escaped, lines classed", async () => {
    const r = await page(`/console/main/commit/${shaOf("concept_write: alpha/public")}`, admin);
    expect(r.status).toBe(200);
    expect(r.body).toContain('<span class="d-add">+visible &lt;b&gt;body&lt;/b&gt;</span>');
    expect(r.body).toContain('<span class="d-file">+++ b/data/alpha/public.md</span>');
    expect(r.body).not.toContain("<b>body</b>");
  });

  it("shows a narrow viewer only the visible part of a mixed commit", async () => {
    const r = await page(
      `/console/main/commit/${shaOf("concept_batch: alpha/mixed-visible")}`,
      narrow,
    );
    expect(r.status).toBe(200);
    expect(r.body).toContain("concept_batch: alpha/mixed-visible");
    expect(r.body).toContain("+++ b/data/alpha/mixed-visible.md");
    for (const word of HIDDEN) expect(r.body, word).not.toContain(word);
  });

  it("answers a hidden commit with the bytes of a nonexistent one", async () => {
    const hidden = shaOf("concept_write: beta/secret-x");
    expect((await page(`/console/main/commit/${hidden}`, admin)).status).toBe(200);
    const a = await page(`/console/main/commit/${hidden}`, narrow);
    const b = await page(`/console/main/commit/${"0".repeat(40)}`, narrow);
    const c = await page("/console/main/commit/not-a-sha", narrow);
    expect(a.status).toBe(404);
    expect(a.body).toBe(b.body);
    expect(a.body).toBe(c.body);
    expect(a.headers["content-length"]).toBe(b.headers["content-length"]);
  });
});
