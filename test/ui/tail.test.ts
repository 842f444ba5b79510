/**
 * The live tail page in Chromium: an event ingested while the page follows a query appears; while
 * paused, new events wait and arrive on resume; scrolled up, the list stops following.
 */
import { strict as assert } from 'assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dispose } from '../helpers/api';
import { launchBrowser, openPage, screenshotOnFailure } from '../helpers/browser';
import { postJson, TestServer } from '../helpers/server';

describe('ui: live tail', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let errors: string[];

  before(async () => {
    [server, browser] = await Promise.all([TestServer.start(), launchBrowser()]);
  });

  beforeEach(async () => {
    ({ context, page, errors } = await openPage(browser!));
  });

  afterEach(async function () {
    await screenshotOnFailure(this.currentTest, page);
    assert.deepEqual(errors, [], 'no error in the page');
    await context?.close();
  });

  after(async () => {
    await browser?.close();
    await dispose(server);
  });

  const ingest = async (texts: string[], level: string) => {
    const answer = await postJson(
      `${server!.api}/ingest`,
      texts.map((event) => ({ event, fields: { level } })),
    );
    assert.equal(answer.status, 200, answer.text);
  };
  const rows = () => page.getByRole('log', { name: 'Tailed events' }).locator('.tail-row');

  it('shows an event ingested while it follows the query, and holds new ones while paused', async () => {
    await ingest(['before the tail'], 'warn');
    await page.goto(`${server!.url}/#/tail`);
    await page.getByRole('textbox', { name: 'Tail query' }).fill('where level = "warn"');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByTestId('tail-phase').filter({ hasText: 'Live' }).waitFor();
    await rows().filter({ hasText: 'before the tail' }).waitFor();

    await ingest(['disk almost full', 'retrying write'], 'warn');
    await ingest(['not followed'], 'info');
    await rows().filter({ hasText: 'disk almost full' }).waitFor();
    await page.getByTestId('tail-count').filter({ hasText: '3 events' }).waitFor();
    assert.equal(await rows().filter({ hasText: 'not followed' }).count(), 0);

    await page.getByRole('button', { name: 'Pause' }).click();
    await ingest(['while paused'], 'warn');
    await page.getByTestId('tail-phase').filter({ hasText: 'Paused (1 waiting)' }).waitFor();
    assert.equal(await rows().filter({ hasText: 'while paused' }).count(), 0, 'held back while paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await rows().filter({ hasText: 'while paused' }).waitFor();
    assert.equal(await page.getByTestId('tail-dropped').innerText(), '0 dropped');
  });

  it('follows new events at the bottom, and stops following when scrolled up', async () => {
    await page.goto(`${server!.url}/#/tail?q=${encodeURIComponent('where level = "debug"')}`);
    await page.getByTestId('tail-phase').filter({ hasText: 'Live' }).waitFor();
    await ingest(
      Array.from({ length: 120 }, (_, i) => `debug line ${i}`),
      'debug',
    );
    const list = page.getByRole('log', { name: 'Tailed events' });
    await rows().filter({ hasText: 'debug line 119' }).waitFor();
    await page.waitForFunction(
      "(() => { const l = document.querySelector('.tail-list'); return l.scrollHeight - l.scrollTop - l.clientHeight < 24; })()",
    );

    await list.hover();
    await page.mouse.wheel(0, -600);
    await page.getByRole('button', { name: 'Follow new events' }).waitFor();
    const scrolled = await list.evaluate((element) => element.scrollTop);
    await ingest(['debug line after scrolling up'], 'debug');
    await rows().filter({ hasText: 'debug line after scrolling up' }).waitFor();
    assert.equal(await list.evaluate((element) => element.scrollTop), scrolled, 'the list stays where the person scrolled');
  });
});
