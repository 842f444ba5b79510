/**
 * The live tail page in Chromium: an event ingested while the page follows a query appears; while
 * paused, new events wait and arrive on resume; scrolled up, the list stops following.
 */
import { strict as assert } from 'assert';
import { dispose } from '../helpers/api';
import { useBrowserPage } from '../helpers/browser';
import { postJson, TestServer } from '../helpers/server';

describe('ui: live tail', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  const ui = useBrowserPage();

  before(async () => {
    server = await TestServer.start();
  });

  after(async () => {
    await dispose(server);
  });

  const ingest = async (texts: string[], level: string) => {
    const answer = await postJson(
      `${server!.api}/ingest`,
      texts.map((event) => ({ event, fields: { level } })),
    );
    assert.equal(answer.status, 200, answer.text);
  };
  const rows = () => ui.page.getByRole('log', { name: 'Tailed events' }).locator('.tail-row');

  it('shows an event ingested while it follows the query, and holds new ones while paused', async () => {
    await ingest(['before the tail'], 'warn');
    await ui.page.goto(`${server!.url}/#/tail`);
    await ui.page.getByRole('textbox', { name: 'Tail query' }).fill('where level = "warn"');
    await ui.page.getByRole('button', { name: 'Start' }).click();
    await ui.page.getByTestId('tail-phase').filter({ hasText: 'Live' }).waitFor();
    await rows().filter({ hasText: 'before the tail' }).waitFor();

    await ingest(['disk almost full', 'retrying write'], 'warn');
    await ingest(['not followed'], 'info');
    await rows().filter({ hasText: 'disk almost full' }).waitFor();
    await ui.page.getByTestId('tail-count').filter({ hasText: '3 events' }).waitFor();
    assert.equal(await rows().filter({ hasText: 'not followed' }).count(), 0);

    await ui.page.getByRole('button', { name: 'Pause' }).click();
    await ingest(['while paused'], 'warn');
    await ui.page.getByTestId('tail-phase').filter({ hasText: 'Paused (1 waiting)' }).waitFor();
    assert.equal(await rows().filter({ hasText: 'while paused' }).count(), 0, 'held back while paused');
    await ui.page.getByRole('button', { name: 'Resume' }).click();
    await rows().filter({ hasText: 'while paused' }).waitFor();
    assert.equal(await ui.page.getByTestId('tail-dropped').innerText(), '0 dropped');
  });

  it('follows new events at the bottom, and stops following when scrolled up', async () => {
    await ui.page.goto(`${server!.url}/#/tail?q=${encodeURIComponent('where level = "debug"')}`);
    await ui.page.getByTestId('tail-phase').filter({ hasText: 'Live' }).waitFor();
    await ingest(
      Array.from({ length: 120 }, (_, i) => `debug line ${i}`),
      'debug',
    );
    const list = ui.page.getByRole('log', { name: 'Tailed events' });
    await rows().filter({ hasText: 'debug line 119' }).waitFor();
    await ui.page.waitForFunction(
      "(() => { const l = document.querySelector('.tail-list'); return l.scrollHeight - l.scrollTop - l.clientHeight < 24; })()",
    );

    await list.hover();
    await ui.page.mouse.wheel(0, -600);
    await ui.page.getByRole('button', { name: 'Follow new events' }).waitFor();
    const scrolled = await list.evaluate((element) => element.scrollTop);
    await ingest(['debug line after scrolling up'], 'debug');
    await rows().filter({ hasText: 'debug line after scrolling up' }).waitFor();
    assert.equal(await list.evaluate((element) => element.scrollTop), scrolled, 'the list stays where the person scrolled');
  });
});
