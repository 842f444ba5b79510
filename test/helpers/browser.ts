/**
 * A real browser for the UI tests: Debian's Chromium (`/usr/bin/chromium`, or CHROMIUM_PATH)
 * driven by playwright-core, which downloads no browser of its own. `.ci/run` installs the
 * package when it is missing. A UI test file calls useBrowserPage() once: each test gets a fresh
 * page, fails on an error thrown in it, and leaves a screenshot in test-results/ui/ when it fails.
 */
import { strict as assert } from 'assert';
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

/** One page in a fresh context (its own sessionStorage), 1400x900, which records its page errors. */
async function openPage(browser: Browser): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  // A condition not met within 15 s fails the test with what was awaited (before mocha's timeout).
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, errors };
}

/** For a mocha afterEach: a screenshot of the page when the test failed, named after the test. */
async function screenshotOnFailure(test: Mocha.Test | undefined, page: Page | undefined): Promise<void> {
  if (test?.state !== 'failed' || page === undefined || page.isClosed()) return;
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const name = test
    .fullTitle()
    .replace(/[^A-Za-z0-9]+/g, '-')
    .slice(0, 120);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true }).catch(() => undefined);
}

/** The page of the running test, and its context (for a second tab). */
export interface BrowserPage {
  readonly page: Page;
  readonly context: BrowserContext;
}

/**
 * Installs a suite's browser hooks: Chromium launched once (alongside the suite's own `before`,
 * which usually starts a server), and for each test a fresh context and page, a screenshot when
 * the test failed, a failure when the page threw an error, and the context closed.
 */
export function useBrowserPage(): BrowserPage {
  let launching: Promise<Browser> | undefined;
  let current: { context: BrowserContext; page: Page; errors: string[] } | undefined;

  before(() => {
    launching = launchBrowser();
    // Awaited by the first beforeEach, which reports a failed launch.
    launching.catch(() => undefined);
  });

  beforeEach(async () => {
    current = await openPage(await launching!);
  });

  afterEach(async function () {
    const opened = current;
    current = undefined;
    if (opened === undefined) return;
    try {
      await screenshotOnFailure(this.currentTest, opened.page);
      assert.deepEqual(opened.errors, [], 'no error in the page');
    } finally {
      await opened.context.close();
    }
  });

  after(async () => {
    await (await launching?.catch(() => undefined))?.close();
  });

  const opened = () => {
    if (current === undefined) throw new Error('useBrowserPage: no page outside a test');
    return current;
  };
  return {
    get page() {
      return opened().page;
    },
    get context() {
      return opened().context;
    },
  };
}
