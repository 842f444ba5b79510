/** The cluster page in Chromium on a cluster of three: every node listed, up, with its share of the events. */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { useBrowserPage } from '../helpers/browser';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, type ClusteredServer } from '../cluster/helpers/clustered-servers';

describe('ui: cluster', function () {
  this.timeout(90_000);
  let nodes: ClusteredServer[] = [];
  const ui = useBrowserPage();
  const INGESTED = 300;

  before(async () => {
    nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 1 } });
    const events = Array.from({ length: INGESTED }, (_, i) => ({ event: `event ${i}`, host: `h${i % 7}` }));
    assert.equal((await postJson(`${nodes[0]!.api}/ingest`, events)).status, 200);
    // The nodes count their events once they are stored: wait until the cluster holds them all.
    await waitUntil(
      async () => {
        const status = (await request(`${nodes[1]!.api}/cluster/status`)).body.data;
        return status.nodes.reduce((sum: number, node: any) => sum + (node.events ?? 0), 0) === INGESTED;
      },
      30_000,
      `the cluster to hold ${INGESTED} events`,
    );
  });

  after(async () => {
    await stopClusteredServers(nodes);
  });

  it('lists every node, up, with its events and share', async () => {
    await ui.page.goto(`${nodes[1]!.server.url}/#/cluster`);
    const table = ui.page.getByRole('table', { name: 'Nodes' });
    await table.locator('tbody tr').nth(2).waitFor();
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((found) => found.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')));
    assert.deepEqual(rows.map((cells) => cells[0]!.replace(' (master)', '')).sort(), nodes.map((node) => node.id).sort());
    for (const cells of rows) assert.equal(cells[3], 'up', `${cells[0]} is up`);
    const events = rows.map((cells) => Number(cells[4]!.replace(/,/g, '')));
    assert.equal(
      events.reduce((sum, n) => sum + n, 0),
      INGESTED,
    );
    const shares = rows.map((cells) => Number(cells[5]!.replace('%', '')));
    for (const [i, share] of shares.entries())
      assert.ok(Math.abs(share - (events[i]! / INGESTED) * 100) < 0.06, `share ${share}% of ${events[i]}`);
  });
});
