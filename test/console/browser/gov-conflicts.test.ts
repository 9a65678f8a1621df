/**
 * Conflict resolution end to end in a real browser, over a real two-instance conflict: the admin
 * sees both sides side by side (stacked at 390 px), a form stripped of its CSRF token is refused,
 * and choosing "Take remote" resolves it — the file then holds the remote text. axe-core clean,
 * screenshots at 1280 and 390 px.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  axeViolations,
  type BrowserSession,
  browserSkipReason,
  launchBrowser,
} from "../../support/browser.js";
import {
  bareRemote,
  conflictBetweenTwo,
  type Instance,
  instance,
  type Remote,
} from "../../support/sync-remote.js";
import { GOV_ADMIN_TOKEN, type GovServer, govServer } from "../pages/gov-server.js";
import { screenshots } from "./gov-shots.js";
import { signInPage } from "./gov-sign-in.js";

const skip = browserSkipReason();

let remote: Remote;
let a: Instance;
let s: GovServer;
let browser: BrowserSession;
beforeAll(async () => {
  if (skip) return;
  remote = await bareRemote();
  const { a: first, b } = await conflictBetweenTwo(
    (name, sync) => instance(remote, name, sync),
    [{ id: "shared/doc", base: "base\n", onB: "local side B\n", onA: "remote side A\n" }],
  );
  a = first;
  s = await govServer({ mount: b.mount });
  browser = await launchBrowser({ bypassCSP: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await a?.close();
  await remote?.cleanup();
});

describe.skipIf(skip !== null)("conflict resolution in a browser", () => {
  it("refuses a form without its CSRF token, then resolves with the remote side", async () => {
    const page = await browser.page();
    await signInPage(page, s.url, GOV_ADMIN_TOKEN);
    await page.goto(`${s.url}/console/kb/conflicts`);
    const sides = await page.locator(".side pre").allTextContents();
    expect(sides).toHaveLength(2);
    expect(sides[0]).toMatch(/^---\ntype: note\n[\s\S]*\nlocal side B\n$/);
    expect(sides[1]).toMatch(/^---\ntype: note\n[\s\S]*\nremote side A\n$/);
    const columns = async () =>
      page
        .locator(".side")
        .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().left)));
    const wide = await columns();
    expect(wide[1]).toBeGreaterThan(wide[0] as number);
    await page.setViewportSize({ width: 390, height: 900 });
    const narrow = await columns();
    expect(narrow[1]).toBe(narrow[0]);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, "gov-conflicts");

    // A forged form: the same fields, no CSRF token.
    await page.locator('form.resolve input[name="_csrf"]').evaluate((el) => el.remove());
    await page.check('input[value="theirs"]');
    const refused = await Promise.all([
      page.waitForNavigation(),
      page.click("form.resolve button"),
    ]).then(([r]) => r);
    expect(refused?.status()).toBe(403);
    expect(await page.textContent("main")).toContain("CSRF check failed");
    expect(await readFile(join(s.mount.settings.root, "data/shared/doc.md"), "utf8")).toContain(
      "local side B",
    );

    await page.goto(`${s.url}/console/kb/conflicts`);
    await page.check('input[value="theirs"]');
    await Promise.all([
      page.waitForURL(/resolved=shared%2Fdoc/),
      page.click("form.resolve button"),
    ]);
    expect(await page.getByRole("status").first().textContent()).toContain(
      "Resolved the conflict on shared/doc",
    );
    expect(await page.textContent("main")).toContain("No conflict is registered.");
    expect(await readFile(join(s.mount.settings.root, "data/shared/doc.md"), "utf8")).toContain(
      "remote side A",
    );
    await screenshots(page, "gov-conflicts-resolved");
    await page.close();
  });
});
