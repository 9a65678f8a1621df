/**
 * Conflict resolution end to end in a real browser, over a real two-instance conflict: the admin
 * sees both sides side by side (stacked at 390 px), a form stripped of its CSRF token is refused,
 * and choosing "Take remote" resolves it — the file then holds the remote text. axe-core clean,
 * screenshots at 1280 and 390 px.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bareRemote,
  conflictBetweenTwo,
  type Instance,
  instance,
  type Remote,
} from "../../support/sync-remote.js";
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

let remote: Remote;
let a: Instance;
let s: GovServer;
let browser: Browser;
beforeAll(async () => {
  if (skip) return;
  remote = await bareRemote();
  const { a: first, b } = await conflictBetweenTwo(
    (name, sync) => instance(remote, name, sync),
    [{ id: "shared/doc", base: "base\n", onB: "local side B\n", onA: "remote side A\n" }],
  );
  a = first;
  s = await govServer({ mount: b.mount });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await a?.close();
  await remote?.cleanup();
});

describe.skipIf(skip !== null)("conflict resolution in a browser", () => {
  it("refuses a form without its CSRF token, then resolves with the remote side", async () => {
    const page = await browser.newPage();
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
    await screenshots(page, SHOTS, "conflicts");

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
    await screenshots(page, SHOTS, "conflicts-resolved");
    await page.close();
  });
});
