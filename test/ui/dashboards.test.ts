/**
 * Dashboards in Chromium: the list, a dashboard of two panels and a variable drawn on the grid at
 * their positions, its panels changing when another variable value is chosen, and an edit saved.
 */
import { strict as assert } from 'assert';
import { dispose, waitUntil } from '../helpers/api';
import { useBrowserPage } from '../helpers/browser';
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
});
