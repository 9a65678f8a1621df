/**
 * The XSS corpus (test/fixtures/console/xss-corpus.md) rendered as a concept in a real Chromium:
 * no payload runs (no dialog, `window.__xss` never set, also after hovering and focusing every
 * link), and the page loads nothing from anywhere but the console. Checked twice: with the
 * console's CSP, and with the CSP bypassed, so the sanitizer is proven on its own too.
 */
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserSession, browserSkipReason, launchBrowser } from "../../support/browser.js";
import {
  ADMIN_TOKEN,
  CONSOLE_FILES,
  type ConsoleServer,
  consoleServer,
  signIn,
} from "../../support/console-kb.js";

const SKIP = browserSkipReason();
const CORPUS = readFileSync(
  new URL("../../fixtures/console/xss-corpus.md", import.meta.url),
  "utf8",
);

describe.skipIf(SKIP !== null)("XSS corpus in Chromium", () => {
  let s: ConsoleServer;
  let cookie: string;
  beforeAll(async () => {
    s = await consoleServer({ files: { ...CONSOLE_FILES, "data/public/xss.md": CORPUS } });
    cookie = await signIn(s, ADMIN_TOKEN);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  async function visit(
    browser: BrowserSession,
  ): Promise<{ page: Page; fired: string[]; offsite: string[] }> {
    const [name, value] = cookie.split("=") as [string, string];
    await browser.context.addCookies([{ name, value, url: s.url }]);
    const page = await browser.page();
    const fired: string[] = [];
    const offsite: string[] = [];
    page.on("dialog", (d) => {
      fired.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on("request", (r) => {
      if (!r.url().startsWith(s.url)) offsite.push(r.url());
    });
    const response = await page.goto(`${s.url}/console/kb/c/public/xss`);
    expect(response?.status()).toBe(200);
    await page.waitForLoadState("load");
    for (const link of await page.locator("main a").all()) {
      await link.hover().catch(() => {});
      await link.focus().catch(() => {});
    }
    await page.waitForTimeout(300);
    if (await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss !== undefined))
      fired.push("window.__xss was set");
    return { page, fired, offsite };
  }

  for (const bypassCSP of [false, true]) {
    it(`no payload executes and nothing remote loads (${bypassCSP ? "CSP bypassed: the sanitizer alone" : "with the console's CSP"})`, async () => {
      const browser = await launchBrowser({ bypassCSP });
      try {
        const { page, fired, offsite } = await visit(browser);
        expect(fired).toEqual([]);
        expect(offsite).toEqual([]);
        // The payloads are on the page as text, and the safe link survived.
        expect(await page.locator("main").textContent()).toContain("<script>window.__xss = 1;");
        expect(await page.locator('main a[href="https://example.org/"]').count()).toBeGreaterThan(
          0,
        );
        expect(
          await page
            .locator(
              "main script, main iframe, main svg, main style, main object, main embed, main form",
            )
            .count(),
        ).toBe(0);
        expect(await page.title()).toContain("<script>window.__xss=1</script>");
      } finally {
        await browser.close();
      }
    }, 60_000);
  }

  it("the harness would see a payload that ran (the check can fail)", async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.page();
      await page.setContent("<script>window.__xss = 1</script>");
      expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBe(1);
    } finally {
      await browser.close();
    }
  });
});
