import { strict as assert } from 'assert';
import { validateChannels } from '../../../node/alerts/channel-config';
import { dispatchNotification } from '../../../node/alerts/dispatch';
import type { ChannelOptions, Notification } from '../../../node/alerts/types';
import {
  readMail,
  startHttpReceiver,
  startSmtpReceiver,
  type HttpReceiver,
  type RecordedRequest,
  type SmtpReceiver,
} from '../../helpers/receivers';

const notification: Notification = {
  alert: {
    id: 'alt_42',
    name: 'checkout <errors> & co.',
    q: 'from web | where status >= 500 | stats count()',
    interval: '5m',
    status: 'triggered',
  },
  result: { 'count()': 17, host: 'web-2' },
  timestamp: '2026-11-27T08:15:00.000Z',
};
const message = `[Trawl] alert "checkout <errors> & co." triggered at 2026-11-27T08:15:00.000Z: count() = 17 (query: ${notification.alert.q})`;

describe('alert channels on the wire', function () {
  this.timeout(30_000);
  let receiver: HttpReceiver;
  let options: Partial<ChannelOptions>;

  beforeEach(async () => {
    receiver = await startHttpReceiver();
    options = {
      sendTimeoutMs: 5_000,
      chatBotApi: receiver.url,
      incidentPagerApi: `${receiver.url}/`,
      opsAlertApi: receiver.url,
      incidentPlatformApi: receiver.url,
    };
  });

  afterEach(async () => {
    await receiver.close();
  });

  /** Sends `notification` through the one channel given and returns the one request received. */
  async function sendThrough(channel: unknown, fired: Notification = notification): Promise<RecordedRequest> {
    const results = await dispatchNotification(validateChannels([channel]), fired, options);
    assert.equal(results.length, 1);
    assert.equal(results[0].status, 'ok', results[0].error);
    assert.equal(typeof results[0].latency_ms, 'number');
    assert.equal(receiver.requests.length, 1);
    return receiver.requests[0];
  }

  it('webhook: POST of the default JSON body to the URL, with the configured headers', async () => {
    const request = await sendThrough({
      type: 'webhook',
      name: 'hook',
      config: { url: `${receiver.url}/hooks/trawl?team=ops`, headers: { 'X-Team': 'ops', Authorization: 'Bearer s3' } },
    });
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/hooks/trawl?team=ops');
    assert.equal(request.headers['x-team'], 'ops');
    assert.equal(request.headers.authorization, 'Bearer s3');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(request.body), {
      alert: notification.alert,
      result: notification.result,
      timestamp: notification.timestamp,
      message,
    });
  });

  it("webhook: the default body leaves out the alert's channels and their secrets", async () => {
    const withChannels: Notification = {
      ...notification,
      alert: { ...notification.alert, channels: [{ type: 'incident_pager', config: { routing_key: 'secret' } }] },
    };
    const request = await sendThrough({ type: 'webhook', config: { url: receiver.url } }, withChannels);
    assert.deepEqual(JSON.parse(request.body).alert, notification.alert);
    assert.ok(!request.body.includes('secret'));
  });

  it('webhook: PUT of a rendered body template, the channel choosing its content type', async () => {
    const request = await sendThrough({
      type: 'webhook',
      config: {
        url: `${receiver.url}/put`,
        method: 'PUT',
        headers: { 'Content-Type': 'text/plain' },
        body_template: '{{.alert.name}} fired: {{.result.count()}} on {{.result.host}} at {{.timestamp}}',
      },
    });
    assert.equal(request.method, 'PUT');
    assert.equal(request.headers['content-type'], 'text/plain');
    assert.equal(request.body, 'checkout <errors> & co. fired: 17 on web-2 at 2026-11-27T08:15:00.000Z');
  });

  it('generic_http: the configured method (PATCH), headers and JSON body template', async () => {
    const request = await sendThrough({
      type: 'generic_http',
      config: {
        url: `${receiver.url}/api/v1/events`,
        method: 'PATCH',
        headers: { 'X-Api-Key': 'k1' },
        body_template: '{"name":"{{.alert.id}}","value":{{.result.count()}},"every":"{{.alert.interval}}"}',
      },
    });
    assert.equal(request.method, 'PATCH');
    assert.equal(request.path, '/api/v1/events');
    assert.equal(request.headers['x-api-key'], 'k1');
    assert.deepEqual(JSON.parse(request.body), { name: 'alt_42', value: 17, every: '5m' });
  });

  it('chat_webhook: text, channel, and the default username and icon', async () => {
    const request = await sendThrough({
      type: 'chat_webhook',
      config: { webhook_url: `${receiver.url}/services/T0/B0/x`, channel: '#ops' },
    });
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/services/T0/B0/x');
    assert.deepEqual(JSON.parse(request.body), { text: message, channel: '#ops', username: 'Trawl', icon_emoji: ':rotating_light:' });
    receiver.requests.length = 0;
    const own = await sendThrough({
      type: 'chat_webhook',
      config: { webhook_url: receiver.url, username: 'alerts', icon_emoji: ':fire:' },
    });
    assert.deepEqual(JSON.parse(own.body), { text: message, username: 'alerts', icon_emoji: ':fire:' });
  });

  it('chat_bot: sendMessage under the bot token, HTML-escaped values by default', async () => {
    const request = await sendThrough({ type: 'chat_bot', config: { bot_token: '123456:ABC-def', chat_id: '-1001234567890' } });
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/bot123456:ABC-def/sendMessage');
    assert.equal(request.headers['content-type'], 'application/json');
    const escapedMessage = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    assert.deepEqual(JSON.parse(request.body), { chat_id: '-1001234567890', text: escapedMessage, parse_mode: 'HTML' });
  });

  it('chat_bot: a message template in MarkdownV2, values escaped and the markup kept', async () => {
    const request = await sendThrough({
      type: 'chat_bot',
      config: {
        bot_token: '1:x',
        chat_id: -100987,
        parse_mode: 'MarkdownV2',
        message_template: '*{{.alert.name}}*: {{.result.count()}} every {{.alert.interval}}',
      },
    });
    assert.deepEqual(JSON.parse(request.body), {
      chat_id: -100987,
      text: '*checkout <errors\\> & co\\.*: 17 every 5m',
      parse_mode: 'MarkdownV2',
    });
  });

  it('incident_pager: an Events API v2 trigger with routing key, dedup key and payload', async () => {
    const request = await sendThrough({ type: 'incident_pager', config: { routing_key: 'R0UT1NG', severity: 'critical' } });
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v2/enqueue');
    assert.deepEqual(JSON.parse(request.body), {
      routing_key: 'R0UT1NG',
      event_action: 'trigger',
      dedup_key: 'alt_42:2026-11-27T08:15:00.000Z',
      client: 'Trawl',
      payload: {
        summary: message,
        source: 'trawl',
        severity: 'critical',
        timestamp: notification.timestamp,
        component: notification.alert.name,
        custom_details: {
          alert: { id: 'alt_42', name: notification.alert.name, q: notification.alert.q, interval: '5m' },
          result: notification.result,
        },
      },
    });
  });

  it('ops_alert: an Alert API create with the GenieKey, alias, priority and tags', async () => {
    const request = await sendThrough({ type: 'ops_alert', config: { api_key: 'genie-1', priority: 'P1', tags: ['prod', 'checkout'] } });
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v2/alerts');
    assert.equal(request.headers.authorization, 'GenieKey genie-1');
    assert.deepEqual(JSON.parse(request.body), {
      message: '[Trawl] alert "checkout <errors> & co." triggered',
      alias: 'alt_42',
      description: message,
      priority: 'P1',
      source: 'Trawl',
      details: { query: notification.alert.q, interval: '5m', 'result.count()': '17', 'result.host': 'web-2' },
      tags: ['prod', 'checkout'],
    });
    receiver.requests.length = 0;
    const byDefault = await sendThrough({ type: 'ops_alert', config: { api_key: 'genie-2' } });
    assert.equal(JSON.parse(byDefault.body).priority, 'P3');
    assert.equal(JSON.parse(byDefault.body).tags, undefined);
  });

  it('incident_platform: a Bearer-authenticated incident with severity and mode', async () => {
    const request = await sendThrough({ type: 'incident_platform', config: { api_key: 'inc-key', severity: 'critical', mode: 'test' } });
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v2/incidents');
    assert.equal(request.headers.authorization, 'Bearer inc-key');
    assert.deepEqual(JSON.parse(request.body), {
      idempotency_key: 'alt_42:2026-11-27T08:15:00.000Z',
      name: '[Trawl] alert "checkout <errors> & co." triggered',
      summary: message,
      severity: 'critical',
      mode: 'test',
      visibility: 'public',
    });
    receiver.requests.length = 0;
    const real = await sendThrough({ type: 'incident_platform', config: { api_key: 'inc-key' } });
    assert.equal(JSON.parse(real.body).mode, 'standard');
    assert.equal(JSON.parse(real.body).severity, 'major');
  });

  describe('email', () => {
    let smtp: SmtpReceiver;

    before(async () => {
      smtp = await startSmtpReceiver();
    });

    after(async () => {
      await smtp.close();
    });

    it('sends one message over SMTP to every recipient, subject and text naming the alert', async () => {
      const channels = validateChannels([
        {
          type: 'email',
          config: {
            to: ['ops@example.com', 'oncall@example.com'],
            from: 'trawl@example.com',
            smtp_host: '127.0.0.1',
            smtp_port: smtp.port,
          },
        },
      ]);
      const results = await dispatchNotification(channels, notification, options);
      assert.equal(results[0].status, 'ok', results[0].error);
      assert.equal(smtp.messages.length, 1);
      const [mail] = smtp.messages;
      assert.equal(mail.from, 'trawl@example.com');
      assert.deepEqual(mail.to, ['ops@example.com', 'oncall@example.com']);
      const { headers, text } = readMail(mail.data);
      assert.equal(headers.subject, '[Trawl] alert "checkout <errors> & co." triggered');
      assert.equal(headers.to, 'ops@example.com, oncall@example.com');
      assert.equal(headers.from, 'trawl@example.com');
      assert.equal(
        text,
        [
          message,
          '',
          'Alert: checkout <errors> & co. (alt_42)',
          `Query: ${notification.alert.q}`,
          'Interval: 5m',
          `Evaluated at: ${notification.timestamp}`,
          '',
          'Result:',
          '  count() = 17',
          '  host = web-2',
          '',
        ].join('\n'),
      );
    });

    it('reports an error when no SMTP server listens', async () => {
      const closed = await startSmtpReceiver();
      const port = closed.port;
      await closed.close();
      const channels = validateChannels([
        {
          type: 'email',
          name: 'mail',
          config: { to: ['ops@example.com'], from: 'trawl@example.com', smtp_host: '127.0.0.1', smtp_port: port },
        },
      ]);
      const results = await dispatchNotification(channels, notification, { ...options, retry: { attempts: 1, backoffMs: [] } });
      assert.equal(results[0].status, 'error');
      assert.equal(results[0].name, 'mail');
      assert.match(results[0].error ?? '', /ECONNREFUSED/);
    });
  });
});
