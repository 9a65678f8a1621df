/**
 * Hidden ≡ missing, byte for byte: a narrow reader's pages are identical on a server whose KB
 * holds a hidden concept (linking to what the reader sees) and on one whose KB does not — no
 * title, count, link or backlink of the hidden concept shows through any page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONSOLE_FILES,
  type ConsoleServer,
  consoleServer,
  NARROW_TOKEN,
  signIn,
} from "../support/console-kb.js";

const WITHOUT_SECRET = Object.fromEntries(
  Object.entries(CONSOLE_FILES).filter(([path]) => path !== "data/secret/plans.md"),
);

let withSecret: ConsoleServer;
let without: ConsoleServer;
const cookies = new Map<ConsoleServer, string>();

beforeAll(async () => {
  withSecret = await consoleServer();
  without = await consoleServer({ files: WITHOUT_SECRET });
  for (const s of [withSecret, without]) cookies.set(s, await signIn(s, NARROW_TOKEN));
});
afterAll(async () => {
  await withSecret?.close();
  await without?.close();
});

/** The page as the narrow reader gets it, with the per-server values (CSRF token, port) blanked. */
async function page(s: ConsoleServer, path: string): Promise<{ status: number; body: string }> {
  const r = await s.get(path, { Cookie: cookies.get(s) as string });
  const body = r.body.replace(/name="_csrf" value="[^"]*"/g, 'name="_csrf" value=""');
  return { status: r.status, body: body.replaceAll(String(s.port), "PORT") };
}

/** Lint figures are computed in the background: wait until both servers show their final text. */
async function settled(path: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const bodies = await Promise.all([withSecret, without].map((s) => page(s, path)));
    if (bodies.every((b) => !b.body.includes("computing"))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const PATHS = [
  "/",
  "/console/kb",
  "/console/kb/browse",
  "/console/kb/browse?map=public",
  "/console/kb/browse?map=secret",
  "/console/kb/c/public/welcome",
  "/console/kb/c/public/welcome?links=1",
  "/console/kb/c/public/second?links=1",
  "/console/kb/c/secret/plans",
  "/console/kb/search?q=zeppelin",
  "/console/kb/search?q=covert",
  "/console/kb/search?q=welcome",
  "/console/kb/asset/data/secret/plans.md",
];

describe("a narrow reader's console", () => {
  it("is byte-identical whether or not a hidden concept exists", async () => {
    await settled("/");
    for (const path of PATHS) {
      const [a, b] = await Promise.all([page(withSecret, path), page(without, path)]);
      expect(a.status, path).toBe(b.status);
      expect(a.body, path).toBe(b.body);
      // A search page echoes its query; nothing else may name the hidden concept.
      const q = new URL(path, "http://x").searchParams.get("q");
      const shown = q === null ? a.body : a.body.replaceAll(q, "");
      expect(shown, path).not.toContain("zeppelin");
      expect(shown, path).not.toContain("Covert");
      expect(shown, path).not.toContain('secret/plans"');
    }
  });

  it("and the same pages do differ for an admin (the comparison can fail)", async () => {
    const { ADMIN_TOKEN } = await import("../support/console-kb.js");
    const admin = await signIn(withSecret, ADMIN_TOKEN);
    const r = await withSecret.get("/console/kb/c/public/welcome?links=1", { Cookie: admin });
    expect(r.body).toContain("Covert zeppelin plans");
  });
});
