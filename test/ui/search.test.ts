/**
 * The search page in Chromium, through a reverse proxy that serves the node under `/trawl/` (so
 * every URL of the page must be relative): a query's row count, a parse error marked at its
 * position, the histogram zoomed by dragging, a field's top value adding a `where`, an event opened
 * as JSON, the view shared by its address, NDJSON export, saved queries, and 50,000 rows in the
 * virtualized table.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import { dispose } from '../helpers/api';
import { useBrowserPage } from '../helpers/browser';
import { startPrefixProxy, type PrefixProxy } from '../helpers/prefix-proxy';
import { postJson, request, TestServer } from '../helpers/server';
import { sampleEvents, typeQuery, type SampleEvent } from './helpers';

const BIG_ROWS = 50_000;

/** The parameters of a page's hash route (`#/search?q=...`). */
function hashParams(url: string): URLSearchParams {
  return new URLSearchParams(new URL(url).hash.split('?')[1] ?? '');
}

describe('ui: search', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  let proxy: PrefixProxy | undefined;
  const ui = useBrowserPage();
  let events: SampleEvent[];

  before(async () => {
    server = await TestServer.start();
    proxy = await startPrefixProxy(server.url);
    // One event every 15 s over the last hour, in index main.
    events = sampleEvents(240, Math.floor(Date.now() / 1000) - 30, 15);
    const answer = await postJson(`${server.api}/ingest`, events);
    assert.equal(answer.status, 200, answer.text);
    // 50,000 events an hour and more ago, in index big.
    const bigNewest = Math.floor(Date.now() / 1000) - 3 * 3600;
    for (let start = 0; start < BIG_ROWS; start += 10_000) {
      const batch = sampleEvents(10_000, bigNewest - start * 0.01, 0.01, 'big');
      const stored = await postJson(`${server.api}/ingest`, batch);
      assert.equal(stored.status, 200, stored.text);
    }
  });

  after(async () => {
    await proxy?.close();
    await dispose(server);
  });

  const open = (params = 'from=-2h') => ui.page.goto(`${proxy!.url}#/search?${params}`);
  const resultCount = () => ui.page.getByTestId('result-count');

  it('serves the page at / with no-cache and hashed assets for good, every URL relative', async () => {
    const index = await request(`${server!.url}/`);
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    const urls = [...index.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(urls.length >= 2, `the page names its script and style: ${urls}`);
    for (const url of urls) assert.match(url, /^(\.\/assets\/|data:)/, 'a relative URL');
    const script = urls.find((url) => url.endsWith('.js'))!;
    const asset = await request(`${proxy!.url}${script.slice(2)}`);
    assert.equal(asset.status, 200, 'the asset through the prefix');
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    assert.doesNotMatch(asset.text, /["'`]\/api\/v1/, 'the bundle calls the API by relative URLs only');
    assert.equal((await request(`${server!.url}/api/v1/no-such-thing`)).status, 404, 'the API keeps its 404');
  });

  it('runs a typed query and shows its row count; the address shares the view', async () => {
    await open();
    const expected = events.filter((event) => event.host === 'web-2').length;
    await typeQuery(ui.page, 'from main | where host = "web-2"');
    await assert.doesNotReject(
      resultCount()
        .filter({ hasText: `${expected} events` })
        .waitFor(),
    );
    assert.equal(hashParams(ui.page.url()).get('q'), 'from main | where host = "web-2"');
    assert.deepEqual(proxy!.outside, [], 'nothing asked outside the prefix');

    // The same address in a new tab shows the same result.
    const shared = await ui.context.newPage();
    await shared.goto(ui.page.url());
    await shared
      .getByTestId('result-count')
      .filter({ hasText: `${expected} events` })
      .waitFor();
    await shared.close();
  });

  it('marks a parse error at its line and column with the suggestion', async () => {
    await open();
    const text = 'from main\n| eval x = 1';
    await typeQuery(ui.page, text);
    const marked = ui.page.locator('.cm-lintRange-error');
    await marked.waitFor();
    assert.equal(await marked.innerText(), 'eval');
    const message = ui.page.getByTestId('parse-error');
    await assert.doesNotReject(message.filter({ hasText: 'Line 2, column 3' }).waitFor());
    assert.match(await message.innerText(), /Suggestion: extend/);

    // Incomplete at its end: the error is placed in the text typed, line 1.
    await typeQuery(ui.page, 'from main | where status >');
    await assert.doesNotReject(message.filter({ hasText: /^Line 1, column \d+: .*Suggestion: / }).waitFor());
  });

  it('zooms into the range dragged across the histogram', async () => {
    await open('q=from%20main&from=-2h&to=now');
    await resultCount()
      .filter({ hasText: `${events.length} events` })
      .waitFor();
    const chart = ui.page.getByTestId('histogram').locator('canvas');
    const box = (await chart.boundingBox())!;
    await ui.page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    await ui.page.mouse.down();
    await ui.page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2, { steps: 5 });
    await ui.page.mouse.move(box.x + box.width * 0.85, box.y + box.height / 2, { steps: 5 });
    await ui.page.mouse.up();

    const fromInput = ui.page.locator('input[name=from]');
    await ui.page.waitForFunction("/^\\d{4}-/.test(document.querySelector('input[name=from]').value)");
    const from = Date.parse(await fromInput.inputValue());
    const to = Date.parse(await ui.page.locator('input[name=to]').inputValue());
    assert.ok(to > from, `a range: ${from} .. ${to}`);
    assert.equal(hashParams(ui.page.url()).get('from'), new Date(from).toISOString());
    const inRange = events.filter((event) => event.time * 1000 >= from && event.time * 1000 < to).length;
    assert.ok(inRange > 0 && inRange < events.length, `the zoom keeps part of the events (${inRange})`);
    await assert.doesNotReject(
      resultCount()
        .filter({ hasText: `${inRange} events` })
        .waitFor(),
    );
  });

  it('adds a where for a top value clicked in the field sidebar, and shows a chosen field as a column', async () => {
    await open('q=from%20main&from=-2h');
    await resultCount()
      .filter({ hasText: `${events.length} events` })
      .waitFor();
    const sidebar = ui.page.getByRole('complementary', { name: 'Fields' });
    await sidebar.getByRole('button', { name: 'host', exact: true }).click();
    await sidebar.getByRole('list', { name: 'Top values of host' }).getByRole('button', { name: 'web-3' }).click();
    const expected = events.filter((event) => event.host === 'web-3').length;
    await assert.doesNotReject(
      resultCount()
        .filter({ hasText: `${expected} events` })
        .waitFor(),
    );
    assert.match(await ui.page.locator('.cm-content').innerText(), /\| where host = "web-3"/);

    await sidebar.getByRole('checkbox', { name: 'show status as a column' }).check();
    await ui.page.getByRole('columnheader', { name: 'status' }).waitFor();
  });

  it('opens an event as JSON', async () => {
    await open('q=from%20main&from=-2h');
    const newest = events[0]!;
    const row = ui.page.getByRole('row').filter({ hasText: newest.event });
    await row.click();
    const detail = ui.page.getByTestId('event-json');
    await detail.waitFor();
    const shown = JSON.parse(await detail.innerText());
    assert.equal(shown._raw, newest.event);
    assert.equal(shown.status, newest.fields.status);
    assert.equal(await row.getAttribute('aria-expanded'), 'true');
  });

  it('exports the events as NDJSON', async () => {
    await open('q=from%20main%20%7C%20where%20status%20%3D%20500&from=-2h');
    const expected = events.filter((event) => event.fields.status === 500);
    await resultCount()
      .filter({ hasText: `${expected.length} events` })
      .waitFor();
    const [download] = await Promise.all([
      ui.page.waitForEvent('download'),
      ui.page.getByRole('button', { name: 'Export NDJSON' }).click(),
    ]);
    const lines = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    assert.equal(lines.length, expected.length);
    assert.deepEqual(lines.map((line) => JSON.parse(line)._raw).sort(), expected.map((event) => event.event).sort());
  });

  it('saves, opens, renames and deletes a saved query', async () => {
    await open('q=from%20main%20%7C%20where%20level%20%3D%20%22error%22&from=-2h');
    const saved = ui.page.getByRole('region', { name: 'Saved queries' });
    await saved.getByRole('textbox', { name: 'Name of the saved query' }).fill('errors');
    await saved.getByRole('button', { name: 'Save current query' }).click();
    await saved.getByRole('button', { name: 'errors', exact: true }).waitFor();

    await typeQuery(ui.page, 'from main');
    await resultCount()
      .filter({ hasText: `${events.length} events` })
      .waitFor();
    await saved.getByRole('button', { name: 'errors', exact: true }).click();
    const errorCount = events.filter((event) => event.fields.level === 'error').length;
    await assert.doesNotReject(
      resultCount()
        .filter({ hasText: `${errorCount} events` })
        .waitFor(),
    );

    await saved.getByRole('button', { name: 'Rename errors' }).click();
    await saved.getByRole('textbox', { name: 'New name for errors' }).fill('server errors');
    await saved.getByRole('button', { name: 'OK' }).click();
    await saved.getByRole('button', { name: 'server errors', exact: true }).waitFor();
    const listed = await request(`${server!.api}/queries`);
    assert.deepEqual(
      listed.body.data.queries.map((query: any) => [query.name, query.q]),
      [['server errors', 'from main | where level = "error"']],
    );

    await saved.getByRole('button', { name: 'Delete server errors' }).click();
    await saved.getByRole('button', { name: 'server errors', exact: true }).waitFor({ state: 'detached' });
    assert.deepEqual((await request(`${server!.api}/queries`)).body.data.queries, []);
  });

  it('keeps 50,000 rows in a virtualized table that draws only the rows in view', async () => {
    await open('q=from%20big&from=-1d&limit=50000');
    await resultCount().filter({ hasText: '50,000 events' }).waitFor({ timeout: 30_000 });
    const drawn = await ui.page.locator('.vt-body [role=row]').count();
    assert.ok(drawn > 0 && drawn < 100, `only the rows in view are drawn (${drawn})`);
    assert.equal(await ui.page.getByRole('table', { name: 'Events' }).getAttribute('aria-rowcount'), String(BIG_ROWS + 1));

    // Scrolled to the end, the oldest event is drawn.
    await ui.page.locator('.vt-body').evaluate((body) => (body.scrollTop = body.scrollHeight));
    const oldest = `GET /item/9999 `;
    await assert.doesNotReject(ui.page.locator('.vt-body [role=row]').filter({ hasText: oldest }).last().waitFor());
  });
});
