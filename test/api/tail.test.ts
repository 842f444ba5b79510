/**
 * GET /tail against the real server with a real EventSource client: catchup order and count,
 * `catchup_done`, live events through a `where` (and stages that reshape), heartbeats at a short
 * `tail.heartbeat_interval`, `head N` ending the session, the 400 and 422 bodies,
 * `tail.max_sessions` (429, also as patched), a client that leaves freeing its session, and a
 * client that stops reading: ingest goes on and the drops are counted in /status.
 */
import { strict as assert } from 'assert';
import http from 'http';
import { assertError, dispose, patchConfig, waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';
import { SseRecorder } from '../helpers/sse';

const KINDS = ['result', 'catchup_done', 'heartbeat', 'error'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface TestEvent {
  event: string;
  time: number;
  index: string;
  fields: Record<string, unknown>;
}

describe('api: live tail', function () {
  this.timeout(120_000);
  let server: TestServer;
  const open: SseRecorder[] = [];

  const tailUrl = (params: Record<string, string | number>): string =>
    `${server.api}/tail?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
  const tail = (params: Record<string, string | number>): SseRecorder => {
    const recorder = new SseRecorder(tailUrl(params), KINDS);
    open.push(recorder);
    return recorder;
  };
  const tailStatus = async (): Promise<{ active_sessions: number; subscriber_count: number; total_dropped_events: number }> =>
    (await request(`${server.api}/status`)).body.data.tail;
  const ingest = async (events: TestEvent[]): Promise<void> => {
    const answer = await postJson(`${server.api}/ingest`, events);
    assert.deepEqual(answer.body, { data: { accepted: events.length, failed: 0 } });
  };
  const nowSeconds = (): number => Date.now() / 1000;

  before(async () => {
    server = await TestServer.start({ set: { 'tail.heartbeat_interval': '300ms', 'tail.max_sessions': 4 } });
  });

  afterEach(async () => {
    for (const recorder of open.splice(0)) recorder.close();
    await waitUntil(async () => (await tailStatus()).active_sessions === 0, 10_000, 'every session closed');
  });

  after(async () => {
    await dispose(server);
  });

  it('catchup: the newest `count` matching events of [from, now), oldest first, then catchup_done', async () => {
    const start = nowSeconds() - 600;
    const events = Array.from({ length: 40 }, (_, i) => ({
      event: `catchup ${i}`,
      time: start + i,
      index: 'catchup',
      fields: { level: i % 3 === 0 ? 'error' : 'info' },
    }));
    // An old event, before `from`, must not come back.
    await ingest([...events, { event: 'catchup old', time: start - 3600, index: 'catchup', fields: { level: 'error' } }]);
    const errors = events.filter((event) => event.fields.level === 'error');
    assert.ok(errors.length > 5);
    const recorder = tail({ q: 'from catchup | where level = "error"', count: 5, from: '-30m' });
    await recorder.until((got) => got.some((event) => event.event === 'catchup_done'), 'catchup_done');
    const results = recorder.of('result');
    assert.deepEqual(
      results.map((event) => event.data._raw),
      errors.slice(-5).map((event) => event.event),
    );
    assert.match(results[0]!.data._time, ISO_UTC);
    assert.deepEqual(recorder.events[5], { event: 'catchup_done', data: { count: 5 } });
    assert.equal(
      recorder.events.slice(0, 5).every((event) => event.event === 'result'),
      true,
      'every result before catchup_done',
    );

    // count larger than what matches: all of them; the default count is 100.
    const all = tail({ q: 'level = "error"', from: '-30m' });
    await all.until((got) => got.some((event) => event.event === 'catchup_done'), 'catchup_done');
    const raws = all.of('result').map((event) => event.data._raw);
    assert.deepEqual(
      raws.filter((raw: string) => raw.startsWith('catchup')),
      errors.map((event) => event.event),
    );
  });

  it('live: events ingested after catchup_done arrive through the pipeline; others do not', async () => {
    const recorder = tail({ q: 'from live | where level = "error" | extend doubled = n * 2 | keep _raw, doubled', count: 0 });
    await recorder.until((got) => got.some((event) => event.event === 'catchup_done'), 'catchup_done');
    assert.deepEqual(recorder.events[0], { event: 'catchup_done', data: { count: 0 } });
    const events = Array.from({ length: 30 }, (_, i) => ({
      event: `live ${i}`,
      time: nowSeconds(),
      index: i % 5 === 4 ? 'elsewhere' : 'live',
      fields: { level: i % 2 === 0 ? 'error' : 'info', n: i },
    }));
    await ingest(events);
    const expected = events.filter((event) => event.index === 'live' && event.fields.level === 'error');
    assert.ok(expected.length > 0);
    await recorder.until((got) => got.filter((event) => event.event === 'result').length >= expected.length, 'the live results');
    // A later matching event marks the end: anything not matching would have arrived before it.
    await ingest([{ event: 'live marker', time: nowSeconds(), index: 'live', fields: { level: 'error', n: -1 } }]);
    await recorder.until((got) => got.some((event) => event.data?._raw === 'live marker'), 'the marker');
    assert.deepEqual(
      recorder.of('result').map((event) => event.data),
      [...expected.map((event) => ({ _raw: event.event, doubled: (event.fields.n as number) * 2 })), { _raw: 'live marker', doubled: -2 }],
    );
  });

  it('a live event reads as the catchup of a later session shows it (the overlap of the two is found by content)', async () => {
    const recorder = tail({ q: 'from shape | extend kind = "x"', count: 0 });
    await recorder.until((got) => got.some((event) => event.event === 'catchup_done'), 'catchup_done');
    const event = {
      event: 'shape 1',
      time: nowSeconds() - 1,
      index: 'shape',
      host: 'web-1',
      fields: { status: 500, ok: true, ratio: 0.25 },
    };
    await ingest([event]);
    await recorder.until((got) => got.some((e) => e.event === 'result'), 'the live event');
    const later = tail({ q: 'from shape | extend kind = "x"', count: 10, from: '-10m' });
    await later.until((got) => got.some((e) => e.event === 'catchup_done'), 'catchup_done');
    assert.deepEqual(later.of('result')[0]!.data, recorder.of('result')[0]!.data);
    assert.equal(recorder.of('result')[0]!.data.status, 500);
    assert.equal(recorder.of('result')[0]!.data.kind, 'x');
  });

  it('`head N` ends the session after N live events', async () => {
    // A raw reader: an EventSource would reconnect to the closed stream.
    const body = new Promise<string>((resolve, reject) => {
      http
        .get(tailUrl({ q: 'from headed | head 2', count: 0 }), (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    await waitUntil(async () => (await tailStatus()).active_sessions === 1, 10_000, 'the session');
    await ingest([1, 2, 3].map((i) => ({ event: `headed ${i}`, time: nowSeconds(), index: 'headed', fields: {} })));
    const frames = (await body).split('\n\n').filter((frame) => frame.startsWith('event: result'));
    assert.deepEqual(
      frames.map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6))._raw),
      ['headed 1', 'headed 2'],
    );
    await waitUntil(async () => (await tailStatus()).active_sessions === 0, 10_000, 'the session to end');
  });

  it('heartbeats every tail.heartbeat_interval in the live phase', async () => {
    const recorder = tail({ q: 'from nothing_here', count: 0 });
    await recorder.until((got) => got.filter((event) => event.event === 'heartbeat').length >= 3, 'three heartbeats', 10_000);
    assert.equal(recorder.events[0]!.event, 'catchup_done');
    for (const heartbeat of recorder.of('heartbeat')) {
      assert.match(heartbeat.data.ts, ISO_UTC);
      assert.equal(heartbeat.data.dropped, 0);
    }
  });

  it('400 INVALID_QUERY with a position and a suggestion; 422 with a plain string for a stage that needs all input', async () => {
    const invalid = await request(tailUrl({ q: 'from web | wher status = 500' }));
    assertError(invalid, 400, 'INVALID_QUERY');
    assert.equal(typeof invalid.body.error.suggestion, 'string');
    assert.ok(invalid.body.error.suggestion.length > 0);
    assert.equal(invalid.body.error.line, 1);

    for (const [q, stage] of [
      ['from web | stats count() by host', 'stats'],
      ['from web | where status = 500 | sort _time', 'sort'],
      ['from web | top host', 'top'],
    ]) {
      const answer = await request(tailUrl({ q: q! }));
      assert.equal(answer.status, 422, q);
      assert.deepEqual(Object.keys(answer.body), ['error'], q);
      assert.equal(typeof answer.body.error, 'string', q);
      assert.ok(answer.body.error.includes(stage!), `${q}: ${answer.body.error}`);
    }
    assertError(await request(tailUrl({ q: 'from web', count: 10_001 })), 400, 'VALIDATION_ERROR');
    assertError(await request(`${server.api}/tail`), 400, 'VALIDATION_ERROR');
    assert.equal((await tailStatus()).active_sessions, 0, 'a refused request opens no session');
  });

  it('429 TOO_MANY_REQUESTS at tail.max_sessions; a client that leaves frees its session', async () => {
    const sessions = [1, 2, 3, 4].map(() => tail({ q: 'from limits', count: 0 }));
    await Promise.all(sessions.map((s) => s.until((got) => got.some((event) => event.event === 'catchup_done'), 'catchup_done')));
    assert.equal((await tailStatus()).active_sessions, 4);
    assertError(await request(tailUrl({ q: 'from limits', count: 0 })), 429, 'TOO_MANY_REQUESTS');
    sessions[0]!.close();
    await waitUntil(async () => (await tailStatus()).active_sessions === 3, 10_000, 'the session of the client that left to close');
    const again = tail({ q: 'from limits', count: 0 });
    await again.until((got) => got.some((event) => event.event === 'catchup_done'), 'a session in the freed place');
  });

  it('tail.max_sessions applies on PATCH /config; a heartbeat interval of 0 is refused', async () => {
    assert.equal((await patchConfig(server, { tail: { max_sessions: 1 } })).status, 200);
    try {
      const first = tail({ q: 'from patched', count: 0 });
      await first.until((got) => got.some((event) => event.event === 'catchup_done'), 'catchup_done');
      assertError(await request(tailUrl({ q: 'from patched', count: 0 })), 429, 'TOO_MANY_REQUESTS');
    } finally {
      assert.equal((await patchConfig(server, { tail: { max_sessions: 4 } })).status, 200);
    }
    const refused = await patchConfig(server, { tail: { heartbeat_interval: '0s' } });
    assertError(refused, 400, 'VALIDATION_ERROR');
    assert.match(refused.body.error.message, /tail\.heartbeat_interval/);
  });

  it('a client that stops reading never stalls ingest: its live results beyond the backlog are dropped and counted', async () => {
    const before = (await tailStatus()).total_dropped_events;
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(tailUrl({ q: 'from slow', count: 0 }), resolve);
      req.on('error', reject);
    });
    assert.equal(response.statusCode, 200);
    // Read nothing more: the server's writes pile up in the socket and then in its buffer.
    response.pause();
    const padding = 'x'.repeat(400);
    const batches = 40;
    const perBatch = 2_000;
    const started = Date.now();
    for (let b = 0; b < batches; b++) {
      const events = Array.from({ length: perBatch }, (_, i) => ({
        event: `slow ${b}-${i} ${padding}`,
        time: nowSeconds(),
        index: 'slow',
        fields: {},
      }));
      await ingest(events);
    }
    const tookMs = Date.now() - started;
    const status = await tailStatus();
    assert.equal(status.active_sessions, 1);
    assert.ok(status.total_dropped_events - before > 0, `drops counted: ${JSON.stringify(status)}`);
    assert.ok(status.total_dropped_events - before < batches * perBatch, 'not everything was dropped');
    assert.ok(tookMs < 60_000, `ingest went on (${tookMs} ms for ${batches * perBatch} events)`);
    const metrics = (await request(`${server.url}/metrics`)).text as string;
    const dropped = Number(/^trawl_tail_dropped_events_total (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(dropped >= status.total_dropped_events, `the Prometheus counter follows /status: ${dropped}`);
    assert.match(metrics, /^trawl_tail_sessions 1$/m);
    response.destroy();
    await waitUntil(async () => (await tailStatus()).active_sessions === 0, 10_000, 'the slow session to close');
    assert.ok((await tailStatus()).total_dropped_events >= status.total_dropped_events, 'drops stay counted after the session');
  });
});
