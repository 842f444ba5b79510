/**
 * Dashboards in Chromium: the list, a dashboard of two panels and a variable drawn on the grid at
 * their positions, its panels changing when another variable value is chosen, an edit saved, and a
 * panel re-run on the refresh interval chosen (on the page's clock, which the test moves on).
 */
import { strict as assert } from 'assert';
import { dispose, waitUntil } from '../helpers/api';
import { useBrowserPage } from '../helpers/browser';
import type { Request } from 'playwright-core';
import { postJson, request, TestServer } from '../helpers/server';
import { sampleEvents, type SampleEvent } from './helpers';

describe('ui: dashboards', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  const ui = useBrowserPage();
  let events: SampleEvent[];
  let id: string;

  before(async () => {
    server = await TestServer.start();
    // web-1, web-2 and web-3 in turn: 31, 30 and 30 events over the last 15 minutes.
    events = sampleEvents(91, Math.floor(Date.now() / 1000) - 5, 10);
    assert.equal((await postJson(`${server.api}/ingest`, events)).status, 200);
    const created = await postJson(`${server.api}/dashboards`, {
      name: 'Web',
      variables: [{ name: 'host', type: 'field_values', field: 'host', default: 'web-1', label: 'Host' }],
      panels: [
        {
          id: 'n',
          title: 'Requests on $host',
          type: 'stat',
          q: 'from main | where host = $host | stats count() as n',
          from: '-1h',
          position: { x: 0, y: 0, w: 4, h: 3 },
        },
        {
          id: 's',
          title: 'By status',
          type: 'table',
          q: 'from main | where host = $host | stats count() as n by status',
          from: '-1h',
          position: { x: 4, y: 0, w: 8, h: 3 },
        },
      ],
    });
    assert.equal(created.status, 201, created.text);
    id = created.body.data.id;
  });

  after(async () => {
    await dispose(server);
  });

  const onHost = (host: string) => events.filter((event) => event.host === host);
  /** The table panel's rows as `status n`, from the test's events of one host. */
  const statusRows = (host: string) => {
    const counts = new Map<number, number>();
    for (const event of onHost(host)) counts.set(event.fields.status, (counts.get(event.fields.status) ?? 0) + 1);
    return [...counts].sort((a, b) => a[0] - b[0]).map(([status, n]) => `${status}\t${n}`);
  };

  it('lists dashboards and draws one on the grid, its panels following the variable', async () => {
    await ui.page.goto(`${server!.url}/#/dashboards`);
    await ui.page.getByRole('link', { name: 'Web' }).click();

    const stat = ui.page.getByRole('region', { name: 'Requests on $host' });
    const table = ui.page.getByRole('region', { name: 'By status' });
    await stat
      .getByTestId('stat-value')
      .filter({ hasText: String(onHost('web-1').length) })
      .waitFor();
    assert.equal(await stat.getByRole('heading').innerText(), 'Requests on web-1');
    await table.locator('tbody tr').first().waitFor();
    assert.deepEqual(await table.locator('tbody tr').allInnerTexts(), statusRows('web-1'));
    // Positions: the stat 4 columns wide at the left, the table the 8 to its right.
    const [statBox, tableBox] = [(await stat.boundingBox())!, (await table.boundingBox())!];
    assert.ok(Math.abs(statBox.y - tableBox.y) < 2, 'one row');
    assert.ok(tableBox.x > statBox.x + statBox.width - 1, 'the table right of the stat');
    assert.ok(tableBox.width > statBox.width * 1.8, 'the table twice as wide');

    await ui.page.getByRole('combobox', { name: 'Host' }).selectOption('web-3');
    await stat
      .getByTestId('stat-value')
      .filter({ hasText: String(onHost('web-3').length) })
      .waitFor();
    await stat.getByRole('heading', { name: 'Requests on web-3' }).waitFor();
    const expected = statusRows('web-3').join('|');
    await waitUntil(
      async () => (await table.locator('tbody tr').allInnerTexts()).join('|') === expected,
      15_000,
      `the table of web-3: ${expected}`,
    );
  });

  it('saves an edit made in the editor', async () => {
    await ui.page.goto(`${server!.url}/#/dashboards/${id}`);
    await ui.page.getByRole('link', { name: 'Edit' }).click();
    await ui.page.getByRole('textbox', { name: 'Name' }).first().fill('Web servers');
    await ui.page.getByRole('button', { name: 'Add panel' }).click();
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.getByRole('heading', { name: 'Web servers', exact: true }).waitFor();
    const stored = (await request(`${server!.api}/dashboards/${id}`)).body.data;
    assert.equal(stored.name, 'Web servers');
    assert.deepEqual(
      stored.panels.map((panel: any) => panel.id),
      ['n', 's', 'p3'],
    );
    assert.deepEqual(stored.panels[2].position, { x: 0, y: 3, w: 6, h: 4 }, 'the new panel below the others');
    await ui.page.getByRole('region', { name: 'Panel 3' }).waitFor();
  });

  it('re-runs a panel on the refresh interval chosen, and never while refresh is off', async () => {
    const { page } = ui;
    const created = await postJson(`${server!.api}/dashboards`, {
      name: 'Ticking',
      panels: [
        { id: 'c', title: 'Ticks', type: 'stat', q: 'from ticks | stats count() as n', from: '-1h', position: { x: 0, y: 0, w: 4, h: 3 } },
      ],
    });
    assert.equal(created.status, 201, created.text);
    let stored = 0;
    const ingestTicks = async (count: number) => {
      const answer = await postJson(`${server!.api}/ingest`, sampleEvents(count, Math.floor(Date.now() / 1000) - 5, 1, 'ticks'));
      assert.equal(answer.status, 200, answer.text);
      stored += count;
    };
    const isPanelQuery = (sent: Request) => sent.method() === 'POST' && new URL(sent.url()).pathname === '/api/v1/query';
    const panelQueries: Request[] = [];
    page.on('request', (sent) => isPanelQuery(sent) && panelQueries.push(sent));
    const shows = (n: number) =>
      page
        .getByRole('region', { name: 'Ticks' })
        .getByTestId('stat-value')
        .filter({ hasText: new RegExp(`^${n}$`) })
        .waitFor();

    // The page's clock flows, and the test moves it on besides: ten minutes pass in a moment.
    await page.clock.install();
    await ingestTicks(3);
    await page.goto(`${server!.url}/#/dashboards/${created.body.data.id}`);
    await shows(stored);
    const atLoad = panelQueries.length;

    // Refresh off: ten minutes go by and the panel asks nothing. "Refresh now" asks once, and as its
    // request comes after any the page would have sent meanwhile, the count holds them all.
    await ingestTicks(4);
    await page.clock.runFor('10:00');
    await Promise.all([page.waitForRequest(isPanelQuery), page.getByRole('button', { name: 'Refresh now' }).click()]);
    assert.equal(panelQueries.length, atLoad + 1, 'no query while refresh is off');
    await shows(stored);

    // Every 10 s: the panel shows what was ingested since once 10 s have passed, and again after 10 more.
    await page.getByRole('combobox', { name: 'Refresh' }).selectOption('10s');
    await ingestTicks(5);
    await Promise.all([page.waitForRequest(isPanelQuery), page.clock.runFor(10_000)]);
    await shows(stored);
    await ingestTicks(1);
    await Promise.all([page.waitForRequest(isPanelQuery), page.clock.runFor(10_000)]);
    await shows(stored);
  });
});
