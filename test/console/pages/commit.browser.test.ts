/**
 * In a real browser (headless Chromium): an admin opens the activity page, follows a commit to
 * its diff, and sees the added lines as text (an HTML tag in the content stays text); both pages
 * pass axe-core's WCAG A/AA checks and are captured at 1280 and 390 px.
 */
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  axeViolations,
  browserSkipReason,
  launch,
  screenshots,
  signInPage,
} from "./gov-browser.js";
import { GOV_ADMIN_TOKEN, type GovServer, govServer } from "./gov-server.js";

const skip = browserSkipReason();
const SHOTS = join(import.meta.dirname, "..", "..", "..", "test-screenshots", "console-gov");

let s: GovServer;
let browser: Browser;
beforeAll(async () => {
  if (skip) return;
  s = await govServer();
  browser = await launch();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe.skipIf(skip !== null)("activity → commit diff in a browser", () => {
  it("opens a diff from the feed", async () => {
    const page = await browser.newPage();
    await signInPage(page, s.url, GOV_ADMIN_TOKEN);
    await page.goto(`${s.url}/console/main/activity`);
    expect(await page.title()).toContain("Activity");
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, SHOTS, "activity");
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
    await screenshots(page, SHOTS, "commit");
    await page.close();
  });
});
