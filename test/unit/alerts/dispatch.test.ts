import { strict as assert } from 'assert';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { validateChannels } from '../../../node/alerts/channel-config';
import { dispatchNotification } from '../../../node/alerts/dispatch';
import { dryRunChannels } from '../../../node/alerts/dry-run';
import type { Notification } from '../../../node/alerts/types';
import { readMail, startHttpReceiver, startSmtpReceiver, waitFor, type HttpReceiver } from '../../helpers/receivers';

const notification: Notification = {
  alert: { id: 'alt_9', name: 'disk full', q: 'from hosts | stats max(disk_pct)', interval: '1m' },
  result: { 'max(disk_pct)': 97 },
  timestamp: '2026-11-27T09:00:00.000Z',
};
const FAST_RETRY = { attempts: 3, backoffMs: [50, 100] };

describe('alert dispatch', function () {
  this.timeout(30_000);
  const receivers: HttpReceiver[] = [];

  async function receiver(...args: Parameters<typeof startHttpReceiver>): Promise<HttpReceiver> {
    const started = await startHttpReceiver(...args);
    receivers.push(started);
    return started;
  }

  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((each) => each.close()));
  });

  it('retries after a receiver answers 500 and reports ok', async () => {
    const flaky = await receiver((index) => (index === 0 ? 500 : 200));
    const channels = validateChannels([{ type: 'webhook', name: 'flaky', config: { url: `${flaky.url}/hook` } }]);
    const results = await dispatchNotification(channels, notification, { retry: FAST_RETRY });
    assert.equal(flaky.requests.length, 2);
    assert.equal(flaky.requests[1].body, flaky.requests[0].body, 'the same notification again');
    assert.deepEqual({ ...results[0], latency_ms: undefined }, { type: 'webhook', name: 'flaky', status: 'ok', latency_ms: undefined });
    assert.equal(typeof results[0].latency_ms, 'number');
  });

  it('gives up after the last attempt with the reason, and does not retry a 4xx', async () => {
    const down = await receiver(() => 503);
    const refusing = await receiver(() => 401);
    const channels = validateChannels([
      { type: 'chat_webhook', config: { webhook_url: down.url } },
      { type: 'ops_alert', config: { api_key: 'wrong' } },
    ]);
    const results = await dispatchNotification(channels, notification, { retry: FAST_RETRY, opsAlertApi: refusing.url });
    assert.equal(down.requests.length, 3);
    assert.equal(refusing.requests.length, 1);
    assert.deepEqual(results, [
      { type: 'chat_webhook', name: 'chat_webhook', status: 'error', error: 'HTTP 503: {"error":"receiver refused"}' },
      { type: 'ops_alert', name: 'ops_alert', status: 'error', error: 'HTTP 401: {"error":"receiver refused"}' },
    ]);
  });

  it('a hanging receiver times out without delaying the other channels', async () => {
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver();
    const sendTimeoutMs = 1_500;
    const channels = validateChannels([
      { type: 'webhook', name: 'hanging', config: { url: hanging.url } },
      { type: 'webhook', name: 'healthy', config: { url: healthy.url } },
    ]);
    const started = performance.now();
    const dispatched = dispatchNotification(channels, notification, { sendTimeoutMs, retry: { attempts: 2, backoffMs: [10] } });
    await waitFor(() => healthy.requests.length === 1 && hanging.requests.length === 1, 'both receivers to be reached');
    // The healthy channel was reached before the hanging one's first attempt could time out.
    assert.ok(performance.now() - started < sendTimeoutMs, 'healthy channel reached within the first timeout');
    const results = await dispatched;
    assert.equal(hanging.requests.length, 2, 'the timed-out attempt was retried');
    assert.deepEqual(results[0], { type: 'webhook', name: 'hanging', status: 'error', error: `no answer within ${sendTimeoutMs} ms` });
    assert.equal(results[1].status, 'ok');
  });

  it('a muted channel sends nothing and reports nothing', async () => {
    const muted = await receiver();
    const live = await receiver();
    const smtp = await startSmtpReceiver();
    try {
      const channels = validateChannels([
        { type: 'webhook', name: 'muted hook', enabled: false, config: { url: muted.url } },
        {
          type: 'email',
          name: 'muted mail',
          enabled: false,
          config: { to: ['a@example.com'], from: 'b@example.com', smtp_host: '127.0.0.1', smtp_port: smtp.port },
        },
        { type: 'webhook', name: 'live hook', config: { url: live.url } },
      ]);
      const results = await dispatchNotification(channels, notification);
      assert.deepEqual(
        results.map((result) => [result.name, result.status]),
        [['live hook', 'ok']],
      );
      assert.equal(live.requests.length, 1);
      assert.equal(muted.requests.length, 0);
      assert.equal(smtp.messages.length, 0);
      assert.deepEqual(await dryRunChannels(channels), [{ type: 'webhook', name: 'live hook', status: 'reachable' }]);
    } finally {
      await smtp.close();
    }
  });

  it('a test notification is marked [TEST] in messages and summaries, and opens only a test incident', async () => {
    const sink = await receiver();
    const channels = validateChannels([
      { type: 'chat_webhook', config: { webhook_url: `${sink.url}/chat` } },
      { type: 'incident_pager', config: { routing_key: 'rk' } },
      { type: 'incident_platform', config: { api_key: 'k', mode: 'real' } },
      { type: 'webhook', config: { url: `${sink.url}/plain` } },
      { type: 'webhook', config: { url: `${sink.url}/templated`, body_template: '{"n":"{{.alert.name}}"}' } },
    ]);
    const results = await dispatchNotification(
      channels,
      { ...notification, test: true },
      { incidentPagerApi: sink.url, incidentPlatformApi: sink.url },
    );
    assert.deepEqual(
      results.map((result) => result.status),
      ['ok', 'ok', 'ok', 'ok', 'ok'],
    );
    const byPath = new Map(sink.requests.map((request) => [request.path, request]));
    const message = `[TEST] [Trawl] alert "disk full" triggered at ${notification.timestamp}: max(disk_pct) = 97 (query: ${notification.alert.q})`;
    assert.equal(JSON.parse(byPath.get('/chat')!.body).text, message);
    const pager = JSON.parse(byPath.get('/v2/enqueue')!.body);
    assert.equal(pager.payload.summary, message);
    assert.equal(pager.dedup_key, `test:alt_9:${notification.timestamp}`);
    const incident = JSON.parse(byPath.get('/v2/incidents')!.body);
    assert.equal(incident.mode, 'test');
    assert.equal(incident.summary, message);
    const plain = byPath.get('/plain')!;
    assert.equal(JSON.parse(plain.body).message, message);
    assert.equal(JSON.parse(plain.body).test, true);
    assert.equal(plain.headers['x-trawl-test'], 'true');
    const templated = byPath.get('/templated')!;
    assert.deepEqual(JSON.parse(templated.body), { n: 'disk full' });
    assert.equal(templated.headers['x-trawl-test'], 'true');
  });

  it('a test email and a test chat message are marked [TEST], escaped for MarkdownV2', async () => {
    const sink = await receiver();
    const smtp = await startSmtpReceiver();
    try {
      const channels = validateChannels([
        { type: 'email', config: { to: ['ops@example.com'], from: 'trawl@example.com', smtp_host: '127.0.0.1', smtp_port: smtp.port } },
        { type: 'chat_bot', config: { bot_token: '1:a', chat_id: 5, parse_mode: 'MarkdownV2', message_template: '*{{.alert.name}}*' } },
        { type: 'ops_alert', config: { api_key: 'k' } },
      ]);
      const results = await dispatchNotification(
        channels,
        { ...notification, test: true },
        { chatBotApi: sink.url, opsAlertApi: sink.url },
      );
      assert.deepEqual(
        results.map((result) => result.status),
        ['ok', 'ok', 'ok'],
      );
      assert.equal(readMail(smtp.messages[0].data).headers.subject, '[TEST] [Trawl] alert "disk full" triggered');
      const byPath = new Map(sink.requests.map((request) => [request.path, JSON.parse(request.body)]));
      assert.equal(byPath.get('/bot1:a/sendMessage').text, '\\[TEST\\] *disk full*');
      const opsAlert = byPath.get('/v2/alerts');
      assert.equal(opsAlert.message, '[TEST] [Trawl] alert "disk full" triggered');
      assert.equal(opsAlert.alias, 'test:alt_9');
    } finally {
      await smtp.close();
    }
  });

  it('an SMTP server that never greets times out', async () => {
    const silent = net.createServer(() => {
      // Accepts the connection and says nothing.
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const channels = validateChannels([
        { type: 'email', config: { to: ['ops@example.com'], from: 'trawl@example.com', smtp_host: '127.0.0.1', smtp_port: port } },
      ]);
      const results = await dispatchNotification(channels, notification, { sendTimeoutMs: 500, retry: { attempts: 1, backoffMs: [] } });
      assert.equal(results[0].status, 'error');
      assert.match(results[0].error ?? '', /^no answer within 500 ms/);
    } finally {
      silent.close();
    }
  });

  it('a dry run reports each enabled channel without sending', async () => {
    const sink = await receiver();
    const channels = validateChannels([
      { type: 'webhook', name: 'local', config: { url: `${sink.url}/x` } },
      { type: 'webhook', name: 'nowhere', config: { url: 'http://no-such-host.invalid/x' } },
      { type: 'chat_bot', config: { bot_token: '1:a', chat_id: 5 } },
      { type: 'email', config: { to: ['a@example.com'], from: 'b@example.com', smtp_host: '127.0.0.1' } },
    ]);
    const results = await dryRunChannels(channels, { chatBotApi: sink.url, sendTimeoutMs: 5_000 });
    assert.deepEqual(results, [
      { type: 'webhook', name: 'local', status: 'reachable' },
      { type: 'webhook', name: 'nowhere', status: 'unresolved' },
      { type: 'chat_bot', name: 'chat_bot', status: 'reachable' },
      { type: 'email', name: 'email', status: 'reachable' },
    ]);
    assert.equal(sink.requests.length, 0);
  });
});
