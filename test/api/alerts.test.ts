/**
 * Alerts against the real server and real receivers: CRUD with 422 for bad channels and intervals,
 * an alert checked every 2 s that triggers on events ingested now and notifies each enabled
 * channel (a webhook with a template, a chat webhook, an incident pager, an email over SMTP) once
 * per tick, a muted channel that stays silent, the dry run that sends nothing, the channel test,
 * a failing query moving the alert to `error`, and its status surviving a kill.
 */
import { strict as assert } from 'assert';
import { assertError, dispose, type Answer } from '../helpers/api';
import { readMail, startHttpReceiver, startSmtpReceiver, waitFor, type HttpReceiver, type SmtpReceiver } from '../helpers/receivers';
import { postJson, request, TestServer } from '../helpers/server';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function putJson(url: string, value: unknown): Promise<Answer> {
  return request(url, { method: 'PUT', body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });
}

describe('api: alerts', function () {
  this.timeout(120_000);
  let server: TestServer | undefined;
  let receiver: HttpReceiver;
  let smtp: SmtpReceiver;

  before(async () => {
    [receiver, smtp] = await Promise.all([startHttpReceiver(), startSmtpReceiver()]);
  });

  beforeEach(async () => {
    receiver.requests.length = 0;
    smtp.messages.length = 0;
    server = await TestServer.start({
      set: { 'alerts.min_interval': '1s', 'alerts.incident_pager_api': receiver.url, 'alerts.send_timeout': '5s' },
    });
  });

  afterEach(async () => {
    await dispose(server);
    server = undefined;
  });

  after(async () => {
    await Promise.all([receiver.close(), smtp.close()]);
  });

  const channels = () => [
    {
      type: 'webhook',
      name: 'hook',
      config: { url: `${receiver.url}/hook`, body_template: '{"alert": "{{.alert.name}}", "n": {{.result.n}}, "at": "{{.timestamp}}"}' },
    },
    { type: 'chat_webhook', config: { webhook_url: `${receiver.url}/chat`, channel: '#ops' } },
    { type: 'incident_pager', config: { routing_key: 'rk-1', severity: 'critical' } },
    { type: 'webhook', name: 'muted', enabled: false, config: { url: `${receiver.url}/muted` } },
    { type: 'email', config: { to: ['ops@example.test'], from: 'trawl@example.test', smtp_host: '127.0.0.1', smtp_port: smtp.port } },
  ];
  const errorsAlert = () => ({
    name: 'errors',
    q: 'from main | where level = "error" | stats count() as n',
    interval: '2s',
    channels: channels(),
  });
  const requestsTo = (path: string) => receiver.requests.filter((received) => received.path === path);

  it('creates, lists, reads, replaces and deletes an alert; refuses bad channels and intervals with 422', async () => {
    const created = await postJson(`${server!.api}/alerts`, errorsAlert());
    assert.equal(created.status, 201, created.text);
    const alert = created.body.data;
    assert.match(alert.id, /^alt_[A-Za-z0-9_-]+$/);
    assert.match(alert.created_at, ISO_UTC);
    assert.equal(alert.enabled, true);
    assert.equal(alert.status, 'ok');
    assert.equal(alert.last_checked, null);
    assert.equal(alert.last_triggered, null);
    assert.equal(alert.channels[1].config.icon_emoji, ':rotating_light:', 'a channel default filled in');
    assert.equal(alert.channels[3].enabled, false);

    const listed = await request(`${server!.api}/alerts`);
    assert.deepEqual(
      listed.body.data.alerts.map((item: { id: string }) => item.id),
      [alert.id],
    );
    const replaced = await putJson(`${server!.api}/alerts/${alert.id}`, { ...errorsAlert(), name: 'errors, renamed', enabled: false });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.data.name, 'errors, renamed');
    assert.equal(replaced.body.data.created_at, alert.created_at);

    const badChannel = await postJson(`${server!.api}/alerts`, {
      ...errorsAlert(),
      channels: [channels()[0], { type: 'chat_webhook', config: {} }],
    });
    assertError(badChannel, 422, 'VALIDATION_ERROR', 'a channel without its required field');
    assert.match(badChannel.body.error.message, /^channels\[1\]\.config\.webhook_url/);
    const noChannels = await postJson(`${server!.api}/alerts`, { ...errorsAlert(), channels: [] });
    assertError(noChannels, 422, 'VALIDATION_ERROR', 'no channel');
    const tooOften = await postJson(`${server!.api}/alerts`, { ...errorsAlert(), interval: '500ms' });
    assertError(tooOften, 422, 'VALIDATION_ERROR', 'an interval under alerts.min_interval');
    assert.match(tooOften.body.error.message, /alerts\.min_interval/);
    const noName = await postJson(`${server!.api}/alerts`, { ...errorsAlert(), name: undefined });
    assertError(noName, 422, 'VALIDATION_ERROR', 'no name');
    assertError(
      await postJson(`${server!.api}/alerts`, { ...errorsAlert(), q: 'from main | wher x' }),
      400,
      'INVALID_QUERY',
      'a query that does not parse',
    );

    assert.equal((await request(`${server!.api}/alerts/${alert.id}`, { method: 'DELETE' })).status, 204);
    assertError(await request(`${server!.api}/alerts/${alert.id}`), 404, 'NOT_FOUND', 'deleted');
    assert.deepEqual((await request(`${server!.api}/alerts`)).body, { data: { alerts: [] } });
  });

  it('triggers on events of the last interval and notifies every enabled channel once per tick; the status survives a kill', async () => {
    const alert = (await postJson(`${server!.api}/alerts`, errorsAlert())).body.data;
    // Error events keep arriving (time: now) until the channels have heard of them.
    const feed = setInterval(() => {
      void postJson(`${server!.api}/ingest`, [{ event: 'boom', fields: { level: 'error' } }]).catch(() => undefined);
    }, 100);
    try {
      await waitFor(
        () => requestsTo('/hook').length >= 2 && smtp.messages.length >= 1 && requestsTo('/v2/enqueue').length >= 1,
        'two notifications',
        30_000,
      );
    } finally {
      clearInterval(feed);
    }
    const hooks = requestsTo('/hook').map((received) => JSON.parse(received.body) as { alert: string; n: number; at: string });
    for (const hook of hooks) {
      assert.equal(hook.alert, 'errors');
      assert.ok(hook.n > 0, 'the template shows the count');
      assert.match(hook.at, ISO_UTC);
    }
    assert.equal(new Set(hooks.map((hook) => hook.at)).size, hooks.length, 'no tick notified twice');
    const chat = JSON.parse(requestsTo('/chat')[0]!.body);
    assert.equal(chat.channel, '#ops');
    assert.match(chat.text, /errors/);
    const page = JSON.parse(requestsTo('/v2/enqueue')[0]!.body);
    assert.equal(page.routing_key, 'rk-1');
    assert.equal(page.event_action, 'trigger');
    assert.equal(page.payload.severity, 'critical');
    assert.deepEqual(smtp.messages[0]!.to, ['ops@example.test']);
    assert.match(readMail(smtp.messages[0]!.data).text, /errors/);
    assert.equal(requestsTo('/muted').length, 0, 'a muted channel stays silent');

    const seen = (await request(`${server!.api}/alerts/${alert.id}`)).body.data;
    assert.equal(seen.status, 'triggered');
    assert.match(seen.last_triggered, ISO_UTC);
    assert.match(seen.last_checked, ISO_UTC);

    await putJson(`${server!.api}/alerts/${alert.id}`, { ...errorsAlert(), enabled: false });
    const before = (await request(`${server!.api}/alerts/${alert.id}`)).body.data;
    const dataDir = server!.dataDir;
    await server!.kill();
    server = await TestServer.start({ dataDir, set: { 'alerts.min_interval': '1s' } });
    const after = (await request(`${server.api}/alerts/${alert.id}`)).body.data;
    assert.deepEqual(
      { status: after.status, last_triggered: after.last_triggered, last_checked: after.last_checked },
      { status: before.status, last_triggered: before.last_triggered, last_checked: before.last_checked },
      'the status after a kill',
    );
  });

  it('the dry run sends nothing; the channel test sends [TEST] to every enabled channel', async () => {
    const alert = (await postJson(`${server!.api}/alerts`, { ...errorsAlert(), interval: '1h', enabled: false })).body.data;
    assert.equal(
      (
        await postJson(`${server!.api}/ingest`, [
          { event: 'boom', fields: { level: 'error' } },
          { event: 'bang', fields: { level: 'error' } },
        ])
      ).status,
      200,
    );
    const dry = await postJson(`${server!.api}/alerts/${alert.id}/test`, {});
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.body.data.would_trigger, true);
    assert.deepEqual(dry.body.data.result, { n: 2 });
    assert.deepEqual(
      dry.body.data.channels_that_would_fire.map((channel: { name: string; status: string }) => [channel.name, channel.status]),
      [
        ['hook', 'reachable'],
        ['chat_webhook', 'reachable'],
        ['incident_pager', 'reachable'],
        ['email', 'reachable'],
      ],
    );
    assert.match(dry.body.data.message, /errors/);
    assert.equal(receiver.requests.length + smtp.messages.length, 0, 'a dry run sends nothing');

    const tested = await postJson(`${server!.api}/alerts/${alert.id}/test-channels`, {});
    assert.equal(tested.status, 200, tested.text);
    const results = tested.body.data.results as { type: string; name: string; status: string; latency_ms?: number }[];
    assert.deepEqual(
      results.map((result) => [result.type, result.status]),
      [
        ['webhook', 'ok'],
        ['chat_webhook', 'ok'],
        ['incident_pager', 'ok'],
        ['email', 'ok'],
      ],
    );
    for (const result of results) assert.equal(typeof result.latency_ms, 'number');
    assert.match(JSON.parse(requestsTo('/chat')[0]!.body).text, /\[TEST\]/);
    assert.equal(requestsTo('/muted').length, 0);
    assertError(await postJson(`${server!.api}/alerts/alt_nope/test`, {}), 404, 'NOT_FOUND', 'an unknown alert');
  });

  it('moves to error when its query fails', async () => {
    await dispose(server);
    server = await TestServer.start({ set: { 'alerts.min_interval': '1s', 'query.max_query_memory': '16kb' } });
    const events = Array.from({ length: 400 }, (_, i) => ({ event: `line ${i} ${'x'.repeat(100)}` }));
    assert.equal((await postJson(`${server.api}/ingest`, events)).status, 200);
    const failing = { name: 'too big', q: 'from main | sort _raw', interval: '1s', channels: [channels()[0]] };
    // Its window is the last second: keep events arriving so that the sort has rows to hold.
    const feed = setInterval(() => void postJson(`${server!.api}/ingest`, events).catch(() => undefined), 200);
    const alert = (await postJson(`${server.api}/alerts`, failing)).body.data;
    try {
      const api = server.api;
      let status = 'ok';
      const deadline = Date.now() + 30_000;
      while (status !== 'error' && Date.now() < deadline) {
        status = (await request(`${api}/alerts/${alert.id}`)).body.data.status;
      }
      assert.equal(status, 'error');
    } finally {
      clearInterval(feed);
    }
    assert.equal(requestsTo('/hook').length, 0, 'a failed check notifies nobody');
  });
});
