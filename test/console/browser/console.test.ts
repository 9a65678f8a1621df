/**
 * The console in a real headless Chromium against a real server and KB: sign in through the
 * form, browse to a concept, search from the header box, reach the nav and search by keyboard,
 * sign out; screenshots of each main page at 1280 and 390 px (test-screenshots/), the phone
 * layout without horizontal scrolling, and no serious or critical axe-core violation.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  axeViolations,
  type BrowserSession,
  browserSkipReason,
  launchBrowser,
  screenshot,
} from "../../support/browser.js";
import { ADMIN_TOKEN, type ConsoleServer, consoleServer } from "../../support/console-kb.js";

const SKIP = browserSkipReason();

describe.skipIf(SKIP !== null)("console in Chromium", () => {
  let s: ConsoleServer;
  let browser: BrowserSession;
  beforeAll(async () => {
    s = await consoleServer();
    // bypassCSP only so axe-core can be injected as a script tag; the XSS suite keeps the CSP.
    browser = await launchBrowser({ bypassCSP: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  async function signedIn(width = 1280): Promise<Page> {
    await browser.context.clearCookies();
    const page = await browser.page(width);
    await page.goto(`${s.url}/`);
    expect(page.url()).toContain("/console/signin");
    await page.getByLabel("Bearer token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/`);
    return page;
  }

  it("signs in, browses to a concept and searches from the header", async () => {
    const page = await signedIn();
    expect(await page.locator("h1").textContent()).toBe("Knowledge bases");
    await page.getByRole("link", { name: "kb", exact: true }).click();
    await page.getByRole("link", { name: "Browse" }).click();
    await page.getByRole("link", { name: "Public notes" }).first().click();
    await page.getByRole("link", { name: "Welcome page" }).click();
    expect(await page.locator("h1").textContent()).toBe("Welcome page");
    // The image is the KB's own asset, loaded from the console.
    const loaded = await page
      .locator(".concept-body img")
      .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 1);
    expect(loaded).toBe(true);
    await page.getByRole("link", { name: "the second" }).click();
    expect(await page.locator("h1").textContent()).toBe("Second page");
    await page.getByRole("searchbox", { name: "Search kb" }).first().fill("zeppelin");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/console\/kb\/search\?q=zeppelin/);
    expect(await page.getByRole("link", { name: "Covert zeppelin plans" }).count()).toBe(1);
    await page.close();
  });

  it("keyboard: Tab from the top reaches the skip link, the nav and the search box", async () => {
    const page = await signedIn();
    await page.goto(`${s.url}/console/kb`);
    const reached: string[] = [];
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press("Tab");
      reached.push(
        await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          return `${el?.tagName.toLowerCase()}:${el?.getAttribute("id") ?? el?.textContent?.trim() ?? ""}`;
        }),
      );
    }
    expect(reached[0]).toBe("a:Skip to content");
    expect(reached).toContain("a:Browse");
    expect(reached).toContain("a:Search");
    expect(reached).toContain("input:top-q");
    await page.close();
  });

  it("main pages: screenshots at 1280 and 390 px, no sideways scroll on a phone, no serious axe violation", async () => {
    const pages: [string, string][] = [
      ["home", "/"],
      ["kb", "/console/kb"],
      ["browse", "/console/kb/browse?map=public"],
      ["concept", "/console/kb/c/public/welcome?links=1"],
      ["search", "/console/kb/search?q=page"],
    ];
    for (const width of [1280, 390]) {
      const page = await signedIn(width);
      for (const [name, path] of pages) {
        await page.goto(`${s.url}${path}`);
        await screenshot(page, name);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${name} at ${width}px scrolls sideways`).toBeLessThanOrEqual(0);
        expect(await axeViolations(page), `${name} at ${width}px`).toEqual([]);
      }
      await page.close();
    }
    const signin = await browser.page(390);
    await signin.goto(`${s.url}/console/signin`);
    await screenshot(signin, "signin");
    expect(await axeViolations(signin)).toEqual([]);
    await signin.close();
  }, 120_000);

  it("sign-out ends the session", async () => {
    const page = await signedIn();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/console\/signin/);
    await page.goto(`${s.url}/console/kb`);
    expect(page.url()).toContain("/console/signin");
    await page.close();
  });
});
