/**
 * Nothing accepted is silently lost: on every ingest path an event older than `retention`, further
 * ahead than `ingest.max_future`, with more than 1000 fields or with a number float64 cannot hold is
 * refused alone, with its reason in the format's own answer, and counted in both metrics endpoints;
 * the rest of the request is stored and queryable. `ingest.max_future` and `retention` apply live.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import path from 'path';
import { assertError, dispose, patchConfig, post, waitUntil, type Answer } from '../helpers/api';
import { INLINE_PARSE_BYTES } from '../../node/ingest/parser-pool';
import { request, tempDir, TestServer } from '../helpers/server';
import { readStoredEvents } from '../helpers/storage';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Event times relative to the moment of the call, far from the window's edges (retention 7d, max_future 1d). */
function times(): { old: number; ok: number; ahead: number } {
  const now = Date.now();
  return { old: now - 365 * DAY_MS, ok: now - HOUR_MS, ahead: now + 2 * DAY_MS };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const seconds = (ms: number): number => ms / 1000;
const nanos = (ms: number): string => `${BigInt(Math.round(ms)) * 1_000_000n}`;

function manyFields(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, i]));
}

const json = { 'content-type': 'application/json' };

/** `trawl_ingest_events_refused_total` from the Prometheus text, by `reason/format`. */
async function refusedCounters(server: TestServer): Promise<Map<string, number>> {
  const text = (await request(`${server.url}/metrics`)).text;
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^trawl_ingest_events_refused_total\{([^}]*)\} (\d+)$/.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    out.set(`${labels.reason}/${labels.format}`, Number(match[2]));
  }
  return out;
}

/** What a request added to the refused counters (only the series that moved). */
async function refusedBy(server: TestServer, send: () => Promise<Answer>): Promise<{ answer: Answer; added: Record<string, number> }> {
  const before = await refusedCounters(server);
  const answer = await send();
  const after = await refusedCounters(server);
  assert.ok(after.size > 0, 'the refused counter has series');
  const added: Record<string, number> = {};
  for (const [key, value] of after) if (value !== (before.get(key) ?? 0)) added[key] = value - (before.get(key) ?? 0);
  return { answer, added };
}

/** The `_raw` of every event stored under `source`, sorted, through the query API. */
async function storedRaws(server: TestServer, source: string): Promise<string[]> {
  const answer = await request(`${server.api}/query`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ q: `from * | where source == "${source}"`, from: '-2y', to: '+7d' }),
  });
  assert.equal(answer.status, 200, answer.text);
  return (answer.body.data.events as { _raw: string }[]).map((event) => event._raw).sort();
}

describe('api: per-event refusals', function () {
  let server: TestServer;
  let api: string;

  // A server per test: each test reads its own counters and, after a clean stop, its own data dir.
  beforeEach(async () => {
    server = await TestServer.start();
    api = server.api;
  });

  afterEach(async () => {
    await dispose(server);
  });

  /** Stops the server and checks that its data dir holds no refused event (their _raw says old, ahead, huge or wide). */
  async function assertStoredNothingRefused(): Promise<void> {
    assert.equal(await server.stop(), 0, server.log);
    const raws = (await readStoredEvents(server.dataDir)).map((event) => event._raw);
    for (const raw of raws) assert.doesNotMatch(raw, /\b(old|ahead|huge|wide)\b/, `a refused event was stored: ${raw.slice(0, 200)}`);
  }

  it('POST /ingest: refused elements by index, code and reason; the rest stored', async () => {
    const t = times();
    const body = [
      { event: 'native old', time: seconds(t.old), source: 'rf-native' },
      { event: 'native ok', time: seconds(t.ok), source: 'rf-native' },
      { event: 'native ahead', time: seconds(t.ahead), source: 'rf-native' },
      { event: 'native wide', source: 'rf-native', fields: manyFields(1000) },
      // 999 fields and the source label: exactly the limit, stored whole.
      { event: 'native widest kept', source: 'rf-native', fields: manyFields(999) },
      { event: 'native no time', source: 'rf-native' },
    ];
    // 1e400 exists only in JSON text (JSON.stringify would write null).
    const text = `${JSON.stringify(body).slice(0, -1)},{"event":"native huge","source":"rf-native","fields":{"n":1e400}}]`;
    const { answer, added } = await refusedBy(server, () => post(`${api}/ingest`, text, json));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.accepted, 3);
    assert.equal(answer.body.data.failed, 4);
    const errors = answer.body.data.errors as { item: number; code: string; reason: string }[];
    assert.deepEqual(
      errors.map((error) => [error.item, error.code]),
      [
        [0, 'too_old'],
        [2, 'too_far_in_future'],
        [3, 'too_many_fields'],
        [6, 'non_finite_number'],
      ],
    );
    assert.match(
      errors[0]!.reason,
      /^event time \d{4}-\d\d-\d\dT[\d:.]+Z is older than retention allows: the oldest time accepted now is /,
    );
    assert.match(errors[1]!.reason, /further ahead than ingest\.max_future allows/);
    assert.match(errors[2]!.reason, /the event has 1001 fields/);
    assert.match(errors[3]!.reason, /field 'n' holds a number outside the 64-bit floating-point range/);
    assert.deepEqual(added, {
      'too_old/native': 1,
      'non_finite_number/native': 1,
      'too_far_in_future/native': 1,
      'too_many_fields/native': 1,
    });
    assert.deepEqual(await storedRaws(server, 'rf-native'), ['native no time', 'native ok', 'native widest kept']);

    const old = await post(`${api}/ingest`, JSON.stringify([{ event: 'native only old', time: seconds(t.old) }]), json);
    assert.equal(old.status, 200, old.text);
    assert.equal(old.body.data.accepted, 0);
    assert.deepEqual(
      old.body.data.errors.map((error: { code: string }) => error.code),
      ['too_old'],
    );
    assert.match(old.body.data.errors[0].reason, /older than retention allows/);
    await assertStoredNothingRefused();
  });

  it('POST /ingest and /ingest/hec: a `fields` object with an empty or reserved name is refused with the name, not cut', async () => {
    const body = [
      { event: 'names ok', source: 'rf-names', fields: { user: 'u1', '_raw.copy': 'kept' } },
      { event: 'names raw', source: 'rf-names', fields: { user: 'u2', _raw: 'not the line' } },
      { event: 'names index', source: 'rf-names', fields: { index: 'other' } },
      { event: 'names empty', source: 'rf-names', fields: { '': 1 } },
      { event: 'names nested empty', source: 'rf-names', fields: { a: { '': 1 } } },
      { event: 'names null reserved', source: 'rf-names', fields: { _time: null } },
    ];
    const answer = await post(`${api}/ingest`, JSON.stringify(body), json);
    assert.equal(answer.status, 200, answer.text);
    const errors = answer.body.data.errors as { item: number; code: string; reason: string }[];
    assert.deepEqual(
      errors.map((error) => [error.item, error.code]),
      [
        [1, 'invalid'],
        [2, 'invalid'],
        [3, 'invalid'],
        [4, 'invalid'],
      ],
    );
    assert.match(errors[0]!.reason, /field '_raw' uses a reserved name/);
    assert.match(errors[1]!.reason, /field 'index' uses a reserved name/);
    assert.match(errors[2]!.reason, /a field name is empty/);
    assert.match(errors[3]!.reason, /a field name is empty \(under 'a\.'\)/);
    // A null value is an absent field whatever its name.
    assert.deepEqual(await storedRaws(server, 'rf-names'), ['names null reserved', 'names ok']);

    const hec = await post(
      `${api}/ingest/hec`,
      [
        JSON.stringify({ event: 'hec names ok', source: 'rf-hec-names', fields: { user: 'u1' } }),
        JSON.stringify({ event: 'hec names raw', source: 'rf-hec-names', fields: { _sourcetype: 'x' } }),
      ].join('\n'),
    );
    assert.equal(hec.status, 200, hec.text);
    assert.deepEqual([hec.body.accepted, hec.body.failed], [1, 1]);
    assert.match(hec.body.errors[0].reason, /field '_sourcetype' uses a reserved name/);
    await assertStoredNothingRefused();
  });

  it('POST /ingest: a body large enough for a parse worker reports its refusals the same way', async () => {
    const t = times();
    const events = Array.from({ length: 2000 }, (_, i) => ({
      event: `native large ${i} ${'x'.repeat(40)}`,
      time: seconds(t.ok),
      source: 'rf-large',
    }));
    events[1234] = { ...events[1234]!, time: seconds(t.old) };
    const body = JSON.stringify(events);
    assert.ok(body.length > 2 * INLINE_PARSE_BYTES, 'the body must take the worker path');
    const { answer, added } = await refusedBy(server, () => post(`${api}/ingest`, body, json));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.accepted, 1999);
    assert.deepEqual(
      answer.body.data.errors.map((error: { item: number; code: string }) => [error.item, error.code]),
      [[1234, 'too_old']],
    );
    assert.deepEqual(added, { 'too_old/native': 1 });
    await assertStoredNothingRefused();
  });

  it('POST /ingest: a 1000-field event is stored with every field', async () => {
    const answer = await post(
      `${api}/ingest`,
      JSON.stringify([{ event: 'native thousand', source: 'rf-thousand', fields: manyFields(999) }]),
      json,
    );
    assert.deepEqual(answer.body, { data: { accepted: 1, failed: 0 } });
    const query = await request(`${api}/query`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ q: 'from main | where source == "rf-thousand"', from: '-1h', to: '+1h' }),
    });
    const [event] = query.body.data.events as Record<string, unknown>[];
    assert.ok(event !== undefined, query.text);
    for (let i = 0; i < 999; i++) assert.equal(event[`f${i}`], i, `f${i}`);
    await assertStoredNothingRefused();
  });

  it('POST /ingest/raw: a line whose timestamp is out of the window is refused with its line number', async () => {
    const t = times();
    const lines = [
      `${iso(t.old)} ERROR raw old`,
      `${iso(t.ok)} INFO raw ok`,
      `${iso(t.ahead)} WARN raw ahead`,
      '{"msg":"raw huge","n":-1e999}',
      'raw no time',
    ];
    const { answer, added } = await refusedBy(server, () => post(`${api}/ingest/raw`, lines.join('\n'), { 'x-source': 'rf-raw' }));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.accepted, 2);
    assert.equal(answer.body.data.failed, 3);
    assert.equal(answer.body.data.truncated, false);
    assert.deepEqual(
      answer.body.data.errors.map((error: { line: number; code: string }) => [error.line, error.code]),
      [
        [1, 'too_old'],
        [3, 'too_far_in_future'],
        [4, 'non_finite_number'],
      ],
    );
    assert.deepEqual(added, { 'too_old/raw': 1, 'too_far_in_future/raw': 1, 'non_finite_number/raw': 1 });
    assert.deepEqual(await storedRaws(server, 'rf-raw'), [lines[1], lines[4]].sort());
    await assertStoredNothingRefused();
  });

  it('POST /ingest/hec: 200 Success with failed and per-line reasons; a body with nothing accepted is 400 VALIDATION_ERROR', async () => {
    const t = times();
    const lines = [
      JSON.stringify({ event: 'hec old', time: seconds(t.old), source: 'rf-hec' }),
      JSON.stringify({ event: 'hec ok', time: seconds(t.ok), source: 'rf-hec' }),
      JSON.stringify({ event: 'hec ahead', time: seconds(t.ahead), source: 'rf-hec' }),
      '{"event":"hec huge","source":"rf-hec","fields":{"n":1e400}}',
    ];
    const { answer, added } = await refusedBy(server, () =>
      post(`${api}/ingest/hec`, lines.join('\n'), { authorization: 'Splunk <TOKEN>' }),
    );
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.text, 'Success');
    assert.equal(answer.body.code, 0);
    assert.equal(answer.body.accepted, 1);
    assert.equal(answer.body.failed, 3);
    assert.deepEqual(
      answer.body.errors.map((error: { line: number; code: string }) => [error.line, error.code]),
      [
        [1, 'too_old'],
        [3, 'too_far_in_future'],
        [4, 'non_finite_number'],
      ],
    );
    assert.deepEqual(added, { 'too_old/hec': 1, 'too_far_in_future/hec': 1, 'non_finite_number/hec': 1 });
    assert.deepEqual(await storedRaws(server, 'rf-hec'), ['hec ok']);

    const all = await refusedBy(server, () => post(`${api}/ingest/hec`, `${lines[0]}\n${lines[0]}`));
    assertError(all.answer, 400, 'VALIDATION_ERROR', 'every event too old');
    assert.match(all.answer.body.error.message, /^no valid event in the body: line 1: event time .* is older than retention allows/);
    assert.equal(all.answer.body.error.failed, 2);
    assert.deepEqual(
      all.answer.body.error.errors.map((error: { line: number }) => error.line),
      [1, 2],
    );
    assert.deepEqual(all.added, { 'too_old/hec': 2 });
    await assertStoredNothingRefused();
  });

  for (const path of ['/es/_bulk', '/ingest/bulk']) {
    it(`POST ${path}: refused documents are 400 items with error {type, reason}; the others 201`, async () => {
      const t = times();
      const source = `rf-bulk${path.replace(/\//g, '-')}`;
      const lines = [
        { index: { _index: source } },
        { '@timestamp': iso(t.old), msg: 'bulk old' },
        { index: { _index: source } },
        { '@timestamp': iso(t.ok), msg: 'bulk ok' },
        { create: { _index: source } },
        { '@timestamp': iso(t.ahead), msg: 'bulk ahead' },
        { index: { _index: source } },
        { msg: 'bulk wide', ...manyFields(1000) },
      ].map((line) => JSON.stringify(line));
      lines.push(JSON.stringify({ index: { _index: source } }), '{"msg":"bulk huge","n":1e400}');
      const { answer, added } = await refusedBy(server, () =>
        post(`${api}${path}`, lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' }),
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.errors, true);
      const items = (answer.body.items as Record<string, { status: number; error?: { type: string; reason: string } }>[]).map(
        (item) => Object.entries(item)[0]!,
      );
      assert.deepEqual(
        items.map(([action, result]) => [action, result.status, result.error?.type]),
        [
          ['index', 400, 'illegal_argument_exception'],
          ['index', 201, undefined],
          ['create', 400, 'illegal_argument_exception'],
          ['index', 400, 'illegal_argument_exception'],
          ['index', 400, 'mapper_parsing_exception'],
        ],
      );
      assert.match(items[0]![1].error!.reason, /older than retention allows/);
      assert.match(items[2]![1].error!.reason, /further ahead than ingest\.max_future allows/);
      assert.match(items[3]![1].error!.reason, /the event has 1002 fields/);
      assert.match(items[4]![1].error!.reason, /field 'n' holds a number outside/);
      assert.deepEqual(added, { 'too_old/bulk': 1, 'too_far_in_future/bulk': 1, 'too_many_fields/bulk': 1, 'non_finite_number/bulk': 1 });
      // A document's message is its _raw (document-keys.ts).
      assert.deepEqual(await storedRaws(server, source), ['bulk ok']);
      await assertStoredNothingRefused();
    });
  }

  it('POST /es/{index}/_doc: a refused document is 400 VALIDATION_ERROR with the Elasticsearch type and reason', async () => {
    const t = times();
    const { answer, added } = await refusedBy(server, () =>
      post(`${api}/es/rf-doc/_doc`, JSON.stringify({ '@timestamp': iso(t.old), msg: 'doc old' }), json),
    );
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.headers.get('x-elastic-product'), 'Elasticsearch');
    assert.equal(answer.body.error.code, 'VALIDATION_ERROR');
    assert.match(answer.body.error.message, /older than retention allows/);
    assert.equal(answer.body.error.type, 'illegal_argument_exception');
    assert.equal(answer.body.error.reason, answer.body.error.message);
    assert.deepEqual(added, { 'too_old/doc': 1 });
    const huge = await post(`${api}/es/rf-doc/_doc`, '{"msg":"doc huge","n":1e400}', json);
    assertError(huge, 400, 'VALIDATION_ERROR', 'doc 1e400');
    assert.equal(huge.body.error.type, 'mapper_parsing_exception');
    const ok = await post(`${api}/es/rf-doc/_doc`, JSON.stringify({ '@timestamp': iso(t.ok), msg: 'doc ok' }), json);
    assert.equal(ok.status, 201, ok.text);
    // A document's message is its _raw (document-keys.ts).
    assert.deepEqual(await storedRaws(server, 'rf-doc'), ['doc ok']);
    await assertStoredNothingRefused();
  });

  it('POST /otlp/v1/logs: refused records in partialSuccess; an all-accepted request keeps the empty body', async () => {
    const t = times();
    const record = (ms: number, body: string): string => JSON.stringify({ timeUnixNano: nanos(ms), body: { stringValue: body } });
    const records = [
      record(t.old, 'otlp old'),
      record(t.ok, 'otlp ok'),
      record(t.ahead, 'otlp ahead'),
      '{"body":{"stringValue":"otlp huge"},"attributes":[{"key":"d","value":{"doubleValue":1e400}}]}',
    ];
    const nan = JSON.stringify({
      timeUnixNano: nanos(t.ok),
      body: { stringValue: 'otlp nan' },
      attributes: [{ key: 'ratio', value: { doubleValue: 'NaN' } }],
    });
    const body = `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"rf-otlp"}}]},"scopeLogs":[{"logRecords":[${[...records, nan].join(',')}]}]}]}`;
    const { answer, added } = await refusedBy(server, () => post(`${api}/otlp/v1/logs`, body, json));
    assert.equal(answer.status, 200, answer.text);
    assert.match(String(answer.headers.get('content-type')), /^application\/json/);
    assert.deepEqual(Object.keys(answer.body), ['partialSuccess']);
    assert.equal(answer.body.partialSuccess.rejectedLogRecords, '3');
    const message = answer.body.partialSuccess.errorMessage as string;
    assert.match(
      message,
      /^3 log records refused: resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[0\]: event time .* is older than retention allows/,
    );
    assert.match(message, /logRecords\[2\]: event time .* is further ahead than ingest\.max_future allows/);
    assert.match(message, /logRecords\[3\]: field 'd' holds a number outside/);
    assert.deepEqual(added, { 'too_old/otlp': 1, 'too_far_in_future/otlp': 1, 'non_finite_number/otlp': 1 });
    assert.deepEqual(await storedRaws(server, 'rf-otlp'), ['otlp nan', 'otlp ok']);
    const stored = await request(`${api}/query`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ q: 'from main | where _raw == "otlp nan"', from: '-1d', to: '+1d' }),
    });
    assert.equal(stored.body.data.events[0]?.ratio, 'NaN', stored.text);

    const clean = await post(
      `${api}/otlp/v1/logs`,
      `{"resourceLogs":[{"scopeLogs":[{"logRecords":[${record(t.ok, 'otlp clean')}]}]}]}`,
      json,
    );
    assert.equal(clean.status, 200, clean.text);
    assert.equal(clean.text, '');
    await assertStoredNothingRefused();
  });

  it('GET /api/v1/metrics shows the same refused counts as /metrics, by reason and by format', async () => {
    const t = times();
    const native = [
      { event: 'metrics old', time: seconds(t.old) },
      { event: 'metrics ahead', time: seconds(t.ahead) },
      { event: 'metrics ok', time: seconds(t.ok) },
    ];
    assert.equal((await post(`${api}/ingest`, JSON.stringify(native), json)).body.data.failed, 2);
    const hec = [
      { event: 'metrics hec old', time: seconds(t.old) },
      { event: 'metrics hec ok', time: seconds(t.ok) },
    ];
    assert.equal((await post(`${api}/ingest/hec`, hec.map((line) => JSON.stringify(line)).join('\n'))).body.failed, 1);
    const prometheus = await refusedCounters(server);
    const refused = (await request(`${api}/metrics`)).body.data.ingest.refused_events;
    let total = 0;
    const byReason: Record<string, number> = {};
    const byFormat: Record<string, Record<string, number>> = {};
    for (const [key, value] of prometheus) {
      const [reason, format] = key.split('/') as [string, string];
      total += value;
      byReason[reason] = (byReason[reason] ?? 0) + value;
      if (value > 0) (byFormat[format] ??= {})[reason] = value;
    }
    // What the two requests above refused: native 2, hec 1.
    assert.equal(total, 3);
    assert.deepEqual(byFormat, { native: { too_old: 1, too_far_in_future: 1 }, hec: { too_old: 1 } });
    assert.deepEqual(refused, { total, by_reason: byReason, by_format: byFormat });
  });
});

describe('api: ingest.max_future and retention apply live', function () {
  let server: TestServer;
  let file: string;

  before(async () => {
    file = path.join(tempDir('trawl-refusal-config-'), 'trawl.yaml');
    fs.writeFileSync(file, 'ingest:\n  max_future: 1d\n');
    server = await TestServer.start({ args: ['--config', file] });
  });

  after(async () => {
    await dispose(server);
  });

  const send = (offsetMs: number): Promise<Answer> =>
    post(`${server.api}/ingest`, JSON.stringify([{ event: `at ${offsetMs}`, time: (Date.now() + offsetMs) / 1000 }]), json);
  const code = (answer: Answer): string | null => {
    assert.equal(answer.status, 200, answer.text);
    return answer.body.data.accepted === 1 ? null : answer.body.data.errors[0].code;
  };

  it('GET /config shows ingest.max_future (default 1d, here from the file)', async () => {
    assert.equal((await request(`${server.api}/config`)).body.data.ingest.max_future, '1d');
    assert.equal(code(await send(2 * HOUR_MS)), null);
  });

  it('PATCH /config ingest.max_future: an event 2h ahead is refused at once', async () => {
    const patched = await patchConfig(server, { ingest: { max_future: '1h' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.data.restart_required, []);
    assert.equal(code(await send(2 * HOUR_MS)), 'too_far_in_future');
    assert.equal(code(await send(30 * 60_000)), null);
  });

  it('PATCH /config rejects an ingest.max_future that is not a duration', async () => {
    const answer = await patchConfig(server, { ingest: { max_future: 'soon' } });
    assertError(answer, 400, 'VALIDATION_ERROR');
    assert.match(answer.body.error.message, /ingest\.max_future/);
  });

  it("SIGHUP: the file's new ingest.max_future applies", async () => {
    fs.writeFileSync(file, 'ingest:\n  max_future: 3h\n');
    server.process.kill('SIGHUP');
    await waitUntil(
      async () => (await request(`${server.api}/config`)).body.data.ingest.max_future === '3h',
      10_000,
      'the reloaded max_future',
    );
    assert.equal(code(await send(2 * HOUR_MS)), null);
    assert.equal(code(await send(4 * HOUR_MS)), 'too_far_in_future');
  });

  it('PATCH /config retention: an event older than the new retention is refused at once', async () => {
    assert.equal(code(await send(-2 * HOUR_MS)), null);
    const patched = await patchConfig(server, { retention: '1h' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(code(await send(-2 * HOUR_MS)), 'too_old');
    assert.equal(code(await send(-30 * 60_000)), null);
  });
});
