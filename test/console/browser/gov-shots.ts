/** Screenshots of one page at 1280 and 390 px wide (test/support/browser.ts `screenshot`). */
import type { Page } from "playwright-core";
import { screenshot } from "../../support/browser.js";

/** Saves `<name>-1280.png` and `<name>-390.png`, then restores the 1280 px viewport. */
export async function screenshots(page: Page, name: string): Promise<string[]> {
  const out: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    out.push(await screenshot(page, name));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return out;
}
