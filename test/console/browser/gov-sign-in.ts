/** Signing in through the console's form in a browser page (the governance browser suites). */
import type { Page } from "playwright-core";

/** Fills the sign-in form with `token`; resolves once the browser has left the sign-in page. */
export async function signInPage(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/console/signin`);
  await page.getByLabel("Bearer token").fill(token);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith("/console/signin")),
    page.getByRole("button", { name: "Sign in" }).click(),
  ]);
}
