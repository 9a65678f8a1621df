/**
 * A narrow principal's console in Chromium: signed in with a token that reads only the `public`
 * map, every page it can reach — and every network response the browser receives — holds
 * nothing of the hidden concept (its title, its id as a link, its text).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserSession,
  browserSkipReason,
  launchBrowser,
  screenshot,
} from "../../support/browser.js";
import { type ConsoleServer, consoleServer, NARROW_TOKEN } from "../../support/console-kb.js";

const SKIP = browserSkipReason();
const SECRETS = ["zeppelin", "Covert", "/console/kb/c/secret/plans", "Secret notes"];

describe.skipIf(SKIP !== null)("narrow principal in Chromium", () => {
  let s: ConsoleServer;
  let browser: BrowserSession;
  beforeAll(async () => {
    s = await consoleServer();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("no page and no network response shows the hidden concept", async () => {
    const page = await browser.page();
    const bodies: { url: string; text: string }[] = [];
    page.on("response", async (r) => {
      const type = r.headers()["content-type"] ?? "";
      if (type.startsWith("text/") || type.includes("json"))
        bodies.push({ url: r.url(), text: await r.text().catch(() => "") });
    });
    await page.goto(`${s.url}/console/signin`);
    await page.getByLabel("Bearer token").fill(NARROW_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/`);
    const visited: string[] = [];
    for (const path of [
      "/",
      "/console/kb",
      "/console/kb/browse",
      "/console/kb/c/public/welcome?links=1",
      "/console/kb/c/public/second?links=1",
      "/console/kb/search?q=zeppelin",
      "/console/kb/c/secret/plans",
      "/console/kb/browse?map=secret",
    ]) {
      await page.goto(`${s.url}${path}`);
      visited.push(path);
      const dom = await page.content();
      const shown = dom.replaceAll("zeppelin</title>", "").replaceAll('value="zeppelin"', "");
      for (const secret of SECRETS.filter((x) => x !== "zeppelin" || !path.includes("q=zeppelin")))
        expect(shown, `${path} DOM shows ${secret}`).not.toContain(secret);
    }
    await screenshot(page, "narrow-search");
    await page.goto(`${s.url}/console/kb/c/public/welcome?links=1`);
    await screenshot(page, "narrow-concept");
    expect(bodies.length).toBeGreaterThan(visited.length);
    for (const { url, text } of bodies) {
      const q = new URL(url).searchParams.get("q");
      const shown = q === null ? text : text.replaceAll(q, "");
      for (const secret of SECRETS) expect(shown, `${url} carries ${secret}`).not.toContain(secret);
    }
    // The hidden concept's link in a visible page is plain text, as for a missing one.
    await page.goto(`${s.url}/console/kb/c/public/welcome`);
    expect(await page.locator(".concept-body .missing-link").allTextContents()).toEqual([
      "secret/plans",
    ]);
  }, 60_000);
});
