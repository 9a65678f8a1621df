/**
 * Headless Chromium for the governance pages' browser tests (playwright-core driving the
 * system's /usr/bin/chromium, a fresh profile per launch). Without chromium the tests are skipped
 * with the reason printed, except under CI=true, where they fail instead.
 */
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Why the browser tests cannot run here, or null when they can. Under CI there is no reason. */
export function browserSkipReason(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const why = `no chromium at ${CHROMIUM} (set CHROMIUM_PATH): browser tests skipped`;
  if (process.env.CI === "true") throw new Error(`${why}; CI must run them`);
  process.stderr.write(`${why}\n`);
  return why;
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 30_000 });
}

/** Signs in through the sign-in form with `token`; the page ends on `/`. */
export async function signInPage(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/console/signin`);
  await page.fill("#token", token);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith("/console/signin")),
    page.click("button[type=submit]"),
  ]);
}

const axeSource = (() => {
  const require = createRequire(import.meta.url);
  return require("node:fs").readFileSync(require.resolve("axe-core/axe.min.js"), "utf8") as string;
})();

/** axe-core's violations on the page (WCAG 2 A/AA), as `id: help (n nodes)` lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the protocol, not a <script> tag: the console's CSP forbids inline scripts.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: unknown,
          ) => Promise<{ violations: { id: string; help: string; nodes: unknown[] }[] }>;
        };
      }
    ).axe;
    return axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] } });
  });
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes)`);
}

/** Screenshots of the page at 1280 and 390 px wide into `dir` (`<name>-1280.png`, `<name>-390.png`). */
export async function screenshots(page: Page, dir: string, name: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const out: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const file = join(dir, `${name}-${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    out.push(file);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return out;
}
