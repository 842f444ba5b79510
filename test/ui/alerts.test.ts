/**
 * Alerts in Chromium: a channel form refused as the API would refuse it, an alert created through
 * the form, listed with its status, and its dry run and channel test answered on the ui.page.
 */
import { strict as assert } from 'assert';
import { dispose } from '../helpers/api';
import { useBrowserPage } from '../helpers/browser';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers';
import { postJson, request, TestServer } from '../helpers/server';

describe('ui: alerts', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  let receiver: HttpReceiver | undefined;
  const ui = useBrowserPage();

  before(async () => {
    [server, receiver] = await Promise.all([TestServer.start(), startHttpReceiver()]);
    // Three errors in the last minute: a dry run of a 1m alert on them would trigger.
    const now = Date.now() / 1000;
    const events = [5, 10, 15].map((ago) => ({ event: `write failed ${ago}`, time: now - ago, fields: { level: 'error' } }));
    assert.equal((await postJson(`${server.api}/ingest`, events)).status, 200);
  });

  after(async () => {
    await receiver?.close();
    await dispose(server);
  });

  it('refuses a channel without its required field, as the API does, and creates nothing', async () => {
    await ui.page.goto(`${server!.url}/#/alerts/new`);
    await ui.page.getByRole('textbox', { name: 'Name', exact: true }).fill('no url');
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.getByRole('alert').filter({ hasText: 'channels[0].config.url is required' }).waitFor();
    assert.deepEqual((await request(`${server!.api}/alerts`)).body.data.alerts, []);
  });

  it('creates an alert through the form, lists it, and shows its dry run and channel test', async () => {
    await ui.page.goto(`${server!.url}/#/alerts`);
    await ui.page.getByRole('link', { name: 'New alert' }).click();
    await ui.page.getByRole('textbox', { name: 'Name', exact: true }).fill('write errors');
    await ui.page.getByRole('textbox', { name: 'Query' }).fill('from main | where level = "error" | stats count() as n');
    await ui.page.getByRole('combobox', { name: 'Interval' }).fill('1m');
    await ui.page.getByRole('textbox', { name: 'url (required)' }).fill(`${receiver!.url}/hook`);
    await ui.page.getByRole('button', { name: 'Save' }).click();
    await ui.page.getByRole('heading', { name: 'Alert write errors' }).waitFor();

    const stored = (await request(`${server!.api}/alerts`)).body.data.alerts;
    assert.equal(stored.length, 1);
    assert.deepEqual(stored[0].channels, [{ type: 'webhook', enabled: true, config: { url: `${receiver!.url}/hook`, method: 'POST' } }]);

    await ui.page.getByRole('button', { name: 'Dry run' }).click();
    const dryRun = ui.page.getByRole('region', { name: 'Dry run' });
    await dryRun.getByTestId('dry-run-verdict').filter({ hasText: 'Would trigger' }).waitFor();
    assert.match(await dryRun.locator('pre').innerText(), /"n": 3/);
    assert.equal(receiver!.requests.length, 0, 'a dry run sends nothing');

    await ui.page.getByRole('button', { name: 'Test channels' }).click();
    await ui.page.getByRole('region', { name: 'Test channels' }).getByText('ok', { exact: true }).waitFor();
    // One test notification; a loaded machine may time out the first attempt, and the retry sends the same body again.
    const sent = receiver!.requests.filter((received) => received.path === '/hook').map((received) => received.body);
    assert.ok(sent.length >= 1, 'a test notification');
    assert.equal(new Set(sent).size, 1, 'every attempt carries the same notification');
    const notification = JSON.parse(sent[0]!) as { test: boolean; alert: { name: string } };
    assert.equal(notification.test, true);
    assert.equal(notification.alert.name, 'write errors');

    await ui.page.getByRole('link', { name: 'Alerts' }).click();
    const row = ui.page.getByRole('row').filter({ hasText: 'write errors' });
    await row.waitFor();
    assert.deepEqual((await row.locator('td').allInnerTexts()).slice(1), ['ok', '1m', 'never', 'never']);
  });
});
