/**
 * A real browser for the UI tests: Debian's Chromium (`/usr/bin/chromium`, or CHROMIUM_PATH)
 * driven by playwright-core, which downloads no browser of its own. `.ci/run` installs the
 * package when it is missing. A failed test leaves a screenshot of its page in test-results/ui/.
 */
import fs from 'fs';
import path from 'path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from './server';

export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'ui');

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((candidate) => candidate !== undefined && fs.existsSync(candidate));
  if (found === undefined) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** One page in a fresh context (its own sessionStorage), 1400x900, which fails on a page error. */
export async function openPage(browser: Browser): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  // A condition not met within 15 s fails the test with what was awaited (before mocha's timeout).
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, errors };
}

/** For a mocha afterEach: a screenshot of the page when the test failed, named after the test. */
export async function screenshotOnFailure(test: Mocha.Test | undefined, page: Page | undefined): Promise<void> {
  if (test?.state !== 'failed' || page === undefined || page.isClosed()) return;
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const name = test
    .fullTitle()
    .replace(/[^A-Za-z0-9]+/g, '-')
    .slice(0, 120);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true }).catch(() => undefined);
}
