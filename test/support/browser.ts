/**
 * The browser tests' harness: a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core — no browser download) with a new empty profile, screenshots into
 * test-screenshots/ (git-ignored) for a person to look at, and an axe-core accessibility check.
 *
 * Without /usr/bin/chromium the suites skip with the reason printed; under CI=true a missing
 * Chromium fails instead (.ci/run installs it).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import {
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from "playwright-core";
import { tempDir } from "./temp-dir.js";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
export const SCREENSHOTS = resolve(import.meta.dirname, "../../test-screenshots");

/** Why the browser suites cannot run here, or null. Throws under CI=true (CI never skips them). */
export function browserSkipReason(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const reason = `browser tests skipped: ${CHROMIUM} not found (apt-get install chromium)`;
  if (process.env.CI === "true") throw new Error(`${reason}; CI must run them`);
  process.stderr.write(`${reason}\n`);
  return reason;
}

export interface BrowserSession {
  context: BrowserContext;
  /** A new page; `width` sets a 1280×900 or phone-sized viewport. */
  page(width?: number): Promise<Page>;
  close(): Promise<void>;
}

/** Chromium with a fresh empty profile; every network call the page makes has a timeout. */
export async function launchBrowser(options: BrowserContextOptions = {}): Promise<BrowserSession> {
  const profile = tempDir("carto-chromium-");
  const context = await chromium.launchPersistentContext(profile.dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 30_000,
    viewport: { width: 1280, height: 900 },
    ...options,
  });
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(15_000);
  return {
    context,
    page: async (width = 1280) => {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
      return page;
    },
    close: async () => {
      await context.close().catch(() => {});
      profile.cleanup();
    },
  };
}

/** Saves a full-page screenshot as test-screenshots/<name>-<width>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const file = join(SCREENSHOTS, `${name}-${width}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const requireHere = createRequire(import.meta.url);
let axeSource: string | null = null;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/**
 * axe-core's serious and critical violations on the page. axe is added as a script tag with its
 * source, so the context must be created with `bypassCSP: true` (the console's CSP refuses
 * inline script, as it should).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(requireHere.resolve("axe-core/axe.min.js"), "utf8");
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is a global the script tag defined
    const axe = (window as any).axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map(
      (v: { id: string; impact: string | null; help: string; nodes: unknown[] }) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.length,
      }),
    );
  })) as AxeViolation[];
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}
