/**
 * In Chromium: with auth on, the page asks for a token when the API answers 401, keeps it for the
 * tab (sessionStorage) and runs with it; against a node without some endpoints (a proxy pointing
 * them at paths the node does not serve), each page says what the server lacks instead of failing.
 */
import { strict as assert } from 'assert';
import { dispose } from '../helpers/api';
import { bearer, printedRootToken } from '../helpers/auth';
import { useBrowserPage } from '../helpers/browser';
import { startPrefixProxy, type PrefixProxy } from '../helpers/prefix-proxy';
import { postJson, TestServer } from '../helpers/server';

describe('ui: token prompt and missing endpoints', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  let proxy: PrefixProxy | undefined;
  const ui = useBrowserPage();
  let root: string;

  before(async () => {
    server = await TestServer.start({ set: { 'auth.enabled': true } });
    root = printedRootToken(server.log);
    const events = Array.from({ length: 12 }, (_, i) => ({ event: `login ${i}`, fields: { level: 'info' } }));
    assert.equal((await postJson(`${server.api}/ingest`, events, bearer(root))).status, 200);
    // A node without the histogram, dashboards and alerts: those paths answer its own 404.
    proxy = await startPrefixProxy(server.url, '/trawl/', (path) =>
      path.replace(/^\/api\/v1\/(histogram|dashboards|alerts)/, '/api/v1/no-$1'),
    );
  });

  after(async () => {
    await proxy?.close();
    await dispose(server);
  });

  it('asks for a token on 401, keeps it for the tab, and runs with it', async () => {
    await ui.page.goto(`${server!.url}/#/search?q=from%20main&from=-1h`);
    const dialog = ui.page.getByRole('dialog', { name: 'This server needs an API token' });
    await dialog.waitFor();
    await dialog.getByLabel('API token').fill(root);
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await ui.page.getByTestId('result-count').filter({ hasText: '12 events' }).waitFor();
    assert.equal(await ui.page.evaluate("sessionStorage.getItem('trawl.token')"), root);

    await ui.page.reload();
    await ui.page.getByTestId('result-count').filter({ hasText: '12 events' }).waitFor();
    assert.equal(await dialog.count(), 0, 'no prompt while the tab keeps the token');
  });

  it('a 401 that comes back after the token was given tries that token instead of asking again', async () => {
    // The search's first answer (a 401: it went out without a token) is held until the person has
    // answered the prompt another call opened, as when the histogram's 401 comes back first.
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    await ui.page.route('**/api/v1/query', async (route) => {
      const response = await route.fetch();
      if (held++ === 0) {
        assert.equal(response.status(), 401);
        await answered;
      }
      await route.fulfill({ response });
    });
    await ui.page.goto(`${server!.url}/#/search?q=from%20main&from=-1h`);
    const dialog = ui.page.getByRole('dialog', { name: 'This server needs an API token' });
    await dialog.getByLabel('API token').fill(root);
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await dialog.waitFor({ state: 'detached' });
    release();
    await ui.page.getByTestId('result-count').filter({ hasText: '12 events' }).waitFor();
    assert.equal(held, 2, 'the held call was tried again, with the token');
    assert.equal(await dialog.count(), 0, 'no second prompt');
    assert.equal(await ui.page.evaluate("sessionStorage.getItem('trawl.token')"), root);
  });

  it('says which feature the server lacks instead of failing', async () => {
    await ui.page.goto(`${proxy!.url}#/search?q=from%20main&from=-1h`);
    await ui.page.getByRole('textbox', { name: 'API token' }).fill(root);
    await ui.page.getByRole('button', { name: 'Use token' }).click();
    await ui.page.getByTestId('result-count').filter({ hasText: '12 events' }).waitFor();
    await ui.page.getByText('This server has no histogram (GET /histogram).').waitFor();

    await ui.page.getByRole('link', { name: 'Dashboards' }).click();
    await ui.page.getByText('This server has no dashboards (/dashboards).').waitFor();
    await ui.page.getByRole('link', { name: 'Alerts' }).click();
    await ui.page.getByText('This server has no alerts (/alerts).').waitFor();
  });
});
