/**
 * In a real browser (headless Chromium): an admin opens the activity page, follows a commit to
 * its diff, and sees the added lines as text (an HTML tag in the content stays text); both pages
 * have no serious or critical axe-core violation and are captured at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  axeViolations,
  type BrowserSession,
  browserSkipReason,
  launchBrowser,
} from "../../support/browser.js";
import { GOV_ADMIN_TOKEN, type GovServer, govServer } from "../pages/gov-server.js";
import { screenshots } from "./gov-shots.js";
import { signInPage } from "./gov-sign-in.js";

const skip = browserSkipReason();

let s: GovServer;
let browser: BrowserSession;
beforeAll(async () => {
  if (skip) return;
  s = await govServer();
  // bypassCSP only so axe-core can be injected (test/support/browser.ts).
  browser = await launchBrowser({ bypassCSP: true });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe.skipIf(skip !== null)("activity → commit diff in a browser", () => {
  it("opens a diff from the feed", async () => {
    const page = await browser.page();
    await signInPage(page, s.url, GOV_ADMIN_TOKEN);
    await page.goto(`${s.url}/console/main/activity`);
    expect(await page.title()).toContain("Activity");
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, "gov-activity");
    await Promise.all([
      page.waitForURL(/\/console\/main\/commit\/[0-9a-f]{40}$/),
      page.getByRole("link", { name: "concept_write: alpha/public" }).click(),
    ]);
    const added = await page.locator("pre.diff .d-add").allTextContents();
    expect(added).toContain("+visible <b>body</b>");
    expect(await page.locator("pre.diff b").count()).toBe(0);
    const color = await page
      .locator("pre.diff .d-add")
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(color).toBe("rgb(218, 251, 225)");
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, "gov-commit");
    await page.close();
  });
});
