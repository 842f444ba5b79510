/**
 * The UI's keyboard shortcuts in Chromium, pressed as a person would: Alt+1..5 go to the pages
 * (from the query editor too), `/` puts the cursor in the query editor (but types a slash in a
 * field), Shift+Left and Shift+Right zoom the focused histogram into a half, and Enter or Space
 * on a focused row opens and closes the event. Ctrl+Enter is in search.test.ts.
 */
import { strict as assert } from 'assert';
import type { Page } from 'playwright-core';
import { dispose } from '../helpers/api';
import { useBrowserPage } from '../helpers/browser';
import { postJson, TestServer } from '../helpers/server';
import { sampleEvents, type SampleEvent } from './helpers';

/** The page's range inputs as epoch milliseconds, once both are absolute and differ from `before`. */
async function absoluteRange(page: Page, before = ''): Promise<{ from: number; to: number }> {
  await page.waitForFunction(
    `(() => { const from = document.querySelector('input[name=from]').value; return /^\\d{4}-/.test(from) && from !== ${JSON.stringify(before)}; })()`,
  );
  const from = Date.parse(await page.locator('input[name=from]').inputValue());
  const to = Date.parse(await page.locator('input[name=to]').inputValue());
  return { from, to };
}

/** Whether an element has the keyboard focus; run in the page (the tests compile without the DOM's types). */
const hasFocus = (element: unknown): boolean =>
  element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement;

describe('ui: keyboard shortcuts', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  const ui = useBrowserPage();
  let events: SampleEvent[];
  let now: number;

  before(async () => {
    server = await TestServer.start();
    // One event every 29 s over the last two hours.
    now = Math.floor(Date.now() / 1000);
    events = sampleEvents(240, now - 30, 29);
    const answer = await postJson(`${server.api}/ingest`, events);
    assert.equal(answer.status, 200, answer.text);
  });

  after(async () => {
    await dispose(server);
  });

  const resultCount = () => ui.page.getByTestId('result-count');
  const showsCount = (n: number) =>
    resultCount()
      .filter({ hasText: new RegExp(`^${n.toLocaleString('en-US')} events`) })
      .waitFor();
  const inRange = (range: { from: number; to: number }) =>
    events.filter((event) => event.time * 1000 >= range.from && event.time * 1000 < range.to).length;

  it('goes to each page with Alt+1 to Alt+5, from the query editor too', async () => {
    const { page } = ui;
    await page.goto(`${server!.url}/#/search?q=from%20main&from=-2h`);
    await showsCount(events.length);
    await page.locator('.cm-content').click();

    const current = page.getByRole('navigation', { name: 'Pages' }).locator('[aria-current=page]');
    const pages = [
      { key: 'Alt+2', label: 'Live tail', route: '#/tail', shown: page.getByRole('textbox', { name: 'Tail query' }) },
      { key: 'Alt+3', label: 'Dashboards', route: '#/dashboards', shown: page.getByRole('heading', { name: 'Dashboards' }) },
      { key: 'Alt+4', label: 'Alerts', route: '#/alerts', shown: page.getByRole('link', { name: 'New alert' }) },
      { key: 'Alt+5', label: 'Cluster', route: '#/cluster', shown: page.getByRole('table', { name: 'Nodes' }) },
      { key: 'Alt+1', label: 'Search', route: '#/search', shown: page.locator('.cm-content') },
    ];
    for (const each of pages) {
      await page.keyboard.press(each.key);
      await current.filter({ hasText: new RegExp(`^${each.label}$`) }).waitFor();
      await each.shown.waitFor();
      assert.ok(new URL(page.url()).hash.startsWith(each.route), `${each.key}: ${page.url()}`);
    }
  });

  it('puts the cursor in the query editor on /, and types a slash in a field', async () => {
    const { page } = ui;
    await page.goto(`${server!.url}/#/search?q=from%20main&from=-2h`);
    await showsCount(events.length);
    const editor = page.locator('.cm-content');
    assert.equal(await editor.evaluate(hasFocus), false, 'the editor starts unfocused');

    await page.keyboard.press('/');
    await page.waitForFunction("document.activeElement === document.querySelector('.cm-content')");
    assert.equal(await editor.innerText(), 'from main', 'the slash is not typed into the query');
    // What is typed next goes into the query.
    await page.keyboard.press('End');
    await page.keyboard.type(' | where host = "web-3"');
    await page.keyboard.press('Control+Enter');
    await showsCount(events.filter((event) => event.host === 'web-3').length);

    const name = page.getByRole('textbox', { name: 'Name of the saved query' });
    await name.click();
    await page.keyboard.type('a/b');
    assert.equal(await name.inputValue(), 'a/b');
    assert.equal(await name.evaluate(hasFocus), true, 'the field keeps the cursor');
  });

  it('zooms the focused histogram into its first half on Shift+Left and its second on Shift+Right', async () => {
    const { page } = ui;
    await page.goto(`${server!.url}/#/search?q=from%20main&from=-2h&to=now`);
    await showsCount(events.length);
    const spanMs = 2 * 3600_000;
    const rangeEnd = Date.now();
    // A bucket's alignment and an odd count of buckets move a half by a little.
    const slack = spanMs / 10;

    const chart = page.getByRole('img', { name: /^Histogram of/ });
    await chart.focus();
    await page.keyboard.press('Shift+ArrowLeft');
    const left = await absoluteRange(page);
    assert.ok(
      Math.abs(left.from - (rangeEnd - spanMs)) < slack,
      `the first half starts with the range: ${new Date(left.from).toISOString()}`,
    );
    assert.ok(Math.abs(left.to - (rangeEnd - spanMs / 2)) < slack, `and ends at its middle: ${new Date(left.to).toISOString()}`);
    await showsCount(inRange(left));

    await chart.focus();
    await page.keyboard.press('Shift+ArrowRight');
    const right = await absoluteRange(page, new Date(left.from).toISOString());
    const leftSpan = left.to - left.from;
    assert.ok(
      Math.abs(right.from - (left.from + leftSpan / 2)) < slack / 2,
      `the second half of the first: ${new Date(right.from).toISOString()}`,
    );
    assert.ok(Math.abs(right.to - left.to) < slack / 2, `ending with it: ${new Date(right.to).toISOString()}`);
    const count = inRange(right);
    assert.ok(count > 0 && count < inRange(left), `a quarter of the events (${count})`);
    await showsCount(count);
  });

  it('opens a focused row as JSON on Enter, closes it on Enter, and opens it on Space', async () => {
    const { page } = ui;
    await page.goto(`${server!.url}/#/search?q=from%20main&from=-2h`);
    await showsCount(events.length);
    const newest = events[0]!;
    const row = page.getByRole('row').filter({ hasText: newest.event });
    const detail = page.getByTestId('event-json');

    await row.focus();
    await page.keyboard.press('Enter');
    await detail.waitFor();
    assert.equal(JSON.parse(await detail.innerText())._raw, newest.event);
    assert.equal(await row.getAttribute('aria-expanded'), 'true');

    await page.keyboard.press('Enter');
    await detail.waitFor({ state: 'detached' });
    assert.equal(await row.getAttribute('aria-expanded'), 'false');

    await page.keyboard.press(' ');
    await detail.waitFor();
    assert.equal(JSON.parse(await detail.innerText())._raw, newest.event);
  });
});
