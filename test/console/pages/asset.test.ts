/** Assets: raster images inline with their type, anything else (SVG included) as a download. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  CONSOLE_FILES,
  type ConsoleServer,
  consoleServer,
  NARROW_TOKEN,
  PNG_1PX,
  signIn,
} from "../../support/console-kb.js";

let s: ConsoleServer;
let admin: string;
beforeAll(async () => {
  s = await consoleServer({
    files: {
      ...CONSOLE_FILES,
      "data/public/evil.svg": '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
      "data/public/notes.html": "<script>alert(1)</script>",
      "data/secret/hidden.png": PNG_1PX.toString("latin1"),
    },
  });
  admin = await signIn(s, ADMIN_TOKEN);
});
afterAll(async () => {
  await s.close();
});

describe("asset route", () => {
  it("a PNG is served inline as image/png with nosniff, byte for byte", async () => {
    const r = await s.getBytes("/console/kb/asset/data/assets/dot.png", { Cookie: admin });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("image/png");
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(r.headers["content-disposition"]).toBeUndefined();
    expect(Buffer.compare(r.bytes, PNG_1PX)).toBe(0);
  });

  it("SVG and HTML are downloads, never rendered", async () => {
    for (const path of ["data/public/evil.svg", "data/public/notes.html"]) {
      const r = await s.get(`/console/kb/asset/${path}`, { Cookie: admin });
      expect(r.status, path).toBe(200);
      expect(r.headers["content-type"]).toBe("application/octet-stream");
      expect(r.headers["content-disposition"]).toMatch(/^attachment; filename="/);
    }
  });

  it("a hidden asset, a missing one and a path escaping data/ answer 404", async () => {
    const narrow = await signIn(s, NARROW_TOKEN);
    const hidden = await s.get("/console/kb/asset/data/secret/hidden.png", { Cookie: narrow });
    const missing = await s.get("/console/kb/asset/data/secret/none.png", { Cookie: narrow });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toBe(missing.body);
    for (const path of ["data/../.git/config", "data/%2e%2e/.git/config", ".git/config"]) {
      const r = await s.get(`/console/kb/asset/${path}`, { Cookie: admin });
      expect([400, 404], path).toContain(r.status);
      expect(r.body).not.toContain("[core]");
    }
  });
});
