/**
 * A narrow principal's view in a real browser: every governance page it can reach, with every
 * network response recorded — no hidden id, title or map name reaches the DOM or any response,
 * and a hidden commit's page is the same 404 as a missing one.
 */
import type { Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  axeViolations,
  type BrowserSession,
  browserSkipReason,
  launchBrowser,
} from "../../support/browser.js";
import { git } from "../../support/kb.js";
import { GOV_NARROW_TOKEN, type GovServer, govServer, HIDDEN } from "../pages/gov-server.js";
import { signInPage } from "./gov-sign-in.js";

const skip = browserSkipReason();

let s: GovServer;
let browser: BrowserSession;
beforeAll(async () => {
  if (skip) return;
  s = await govServer();
  browser = await launchBrowser({ bypassCSP: true });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const shaOf = (subject: string) =>
  git(s.mount.settings.root, ["log", "--format=%H", "-F", `--grep=${subject}`, "-n", "1"]);

describe.skipIf(skip !== null)("a narrow principal in a browser", () => {
  it("sees nothing hidden in any page or response", async () => {
    const page = await browser.page();
    const bodies: Promise<string>[] = [];
    page.on("response", (r: Response) => {
      bodies.push(r.text().catch(() => ""));
    });
    await signInPage(page, s.url, GOV_NARROW_TOKEN);
    const dom: string[] = [];
    const visit = async (path: string) => {
      const r = await page.goto(`${s.url}${path}`);
      dom.push(await page.content());
      return r;
    };
    await visit("/console/main/activity");
    expect(
      await page.getByRole("link", { name: "concept_batch: alpha/mixed-visible" }).count(),
    ).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("link", { name: "concept_batch: alpha/mixed-visible" }).click();
    await page.waitForURL(/\/commit\//);
    dom.push(await page.content());
    await visit("/console/main/c/alpha/public/history");
    await visit("/console/main/audit");
    await visit("/console/main/conflicts");
    await visit("/console/main/activity?tool=concept_write");
    const hidden = await visit(`/console/main/commit/${shaOf("concept_write: beta/secret-x")}`);
    const hiddenText = await page.content();
    const missing = await visit(`/console/main/commit/${"f".repeat(40)}`);
    expect(hidden?.status()).toBe(404);
    expect(missing?.status()).toBe(404);
    expect(hiddenText).toBe(await page.content());
    const all = [...dom, ...(await Promise.all(bodies))];
    expect(all.length).toBeGreaterThan(10);
    for (const text of all) for (const word of HIDDEN) expect(text, word).not.toContain(word);
    await page.close();
  });
});
