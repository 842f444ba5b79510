/**
 * `node dist/scripts/ui-screenshots.js [OUT_DIR]`: the screenshots of the web UI that the README
 * shows (docs/images/ by default): a server with an hour of generated web traffic, the search page
 * over it, and a dashboard of several panel types with a variable, in Debian's Chromium.
 */
import { strict as assert } from 'assert';
import path from 'path';
import { EventGenerator } from './bench/generate';
import { launchBrowser } from '../test/helpers/browser';
import { postJson, REPO_ROOT, TestServer } from '../test/helpers/server';

const EVENTS = 30_000;
const HOUR_MS = 3_600_000;

const DASHBOARD = {
  name: 'Web traffic',
  variables: [{ name: 'host', type: 'field_values', field: 'host', default: 'web-3', label: 'Host' }],
  panels: [
    {
      id: 'rate',
      title: 'Requests per minute by level',
      type: 'timechart',
      q: 'from main | stats count() by bin(_time, 1m), level',
      position: { x: 0, y: 0, w: 8, h: 4 },
    },
    {
      id: 'errors',
      title: 'Errors on $host',
      type: 'stat',
      q: 'from main | where host = $host and level = "error" | stats count() as errors',
      position: { x: 8, y: 0, w: 4, h: 2 },
    },
    {
      id: 'p99',
      title: 'p99 ms on $host',
      type: 'stat',
      q: 'from main | where host = $host | stats p99(duration_ms) as p99',
      position: { x: 8, y: 2, w: 4, h: 2 },
    },
    { id: 'status', title: 'Status codes', type: 'pie', q: 'from main | stats count() by status', position: { x: 0, y: 4, w: 4, h: 4 } },
    { id: 'hosts', title: 'Requests by host', type: 'bar', q: 'from main | stats count() by host', position: { x: 4, y: 4, w: 4, h: 4 } },
    {
      id: 'slow',
      title: 'Mean duration on $host',
      type: 'area',
      q: 'from main | where host = $host | stats avg(duration_ms) as avg_ms by bin(_time, 5m)',
      position: { x: 8, y: 4, w: 4, h: 4 },
    },
    {
      id: 'paths',
      title: 'Top paths on $host',
      type: 'table',
      q: 'from main | where host = $host | top 5 path',
      position: { x: 0, y: 8, w: 12, h: 3 },
    },
  ],
};

async function main(): Promise<void> {
  const outDir = process.argv[2] ?? path.join(REPO_ROOT, 'docs', 'images');
  const server = await TestServer.start();
  const browser = await launchBrowser();
  try {
    const generator = new EventGenerator(11, Date.now() - HOUR_MS, HOUR_MS / EVENTS);
    for (let sent = 0; sent < EVENTS; sent += 5_000) {
      const batch = Array.from({ length: 5_000 }, () => generator.next()).filter((event) => event.time * 1000 < Date.now());
      assert.equal((await postJson(`${server.api}/ingest`, batch)).status, 200);
    }
    const created = await postJson(`${server.api}/dashboards`, DASHBOARD);
    assert.equal(created.status, 201, created.text);
    const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });

    const query = 'from main\n| where status >= 500\n| keep _time, host, status, path, duration_ms, _raw';
    await page.goto(
      `${server.url}/#/search?${new URLSearchParams({ q: query, from: '-1h', to: 'now', fields: 'host,status,duration_ms' })}`,
    );
    await page.getByTestId('result-count').filter({ hasText: 'events' }).waitFor();
    await page.getByRole('complementary', { name: 'Fields' }).getByRole('button', { name: 'host', exact: true }).click();
    await page.getByRole('row').nth(2).click();
    await page.screenshot({ path: path.join(outDir, 'ui-search.png') });

    await page.goto(`${server.url}/#/dashboards/${created.body.data.id}`);
    await page.getByRole('region', { name: 'Top paths on $host' }).locator('tbody tr').first().waitFor();
    await page.getByRole('region', { name: 'Status codes' }).locator('canvas').waitFor();
    await page.screenshot({ path: path.join(outDir, 'ui-dashboard.png') });
    console.log(`wrote ${outDir}/ui-search.png and ui-dashboard.png`);
  } finally {
    await browser.close();
    await server.stop();
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
