/**
 * Every ingest endpoint through HTTP: the exact answers, then (server stopped) what was stored.
 * A server per test, with a 16kb body limit so that raw truncation can be exercised.
 */
import { strict as assert } from 'assert';
import zlib from 'zlib';
import { assertFields, dispose, gzip, isoMicros, post, storedBy, storedByRaw, type Answer } from '../helpers/api';
import { request, TestServer } from '../helpers/server';
import { readStoredEvents, type StoredEvent } from '../helpers/storage';

const LIMIT = 16 * 1024;
const ES_JSON = 'application/vnd.elasticsearch+json; compatible-with=8';
const ES_NDJSON = 'application/vnd.elasticsearch+x-ndjson; compatible-with=8';

function ndjson(lines: unknown[]): string {
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

function assertElastic(answer: Answer, context: string): void {
  assert.equal(answer.headers.get('x-elastic-product'), 'Elasticsearch', `x-elastic-product on ${context} (${answer.status})`);
}

/** A bulk answer's items as [action, result] pairs. */
function bulkItems(answer: Answer): [string, Record<string, any>][] {
  assert.equal(answer.status, 200, answer.text);
  assert.ok(Array.isArray(answer.body.items), answer.text);
  return answer.body.items.map((item: Record<string, any>) => {
    const keys = Object.keys(item);
    assert.equal(keys.length, 1, `one action key per item: ${JSON.stringify(item)}`);
    return [keys[0]!, item[keys[0]!]] as [string, Record<string, any>];
  });
}

/** 100-byte raw lines (newline included) for the truncation cases. */
function truncationLines(tag: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${tag}-${String(i).padStart(4, '0')} `.padEnd(99, 'x'));
}

describe('api: ingest endpoints', function () {
  let server: TestServer;
  let api: string;
  /** Receive-time windows (micros) of requests whose events have no time of their own. */
  const windows = new Map<string, [number, number]>();

  // A server per test: each test reads back, after a clean stop, exactly the events it sent.
  beforeEach(async () => {
    // The events carry fixed 2023-2024 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { 'ingest.max_body_size': '16kb', retention: '3650d' } });
    api = server.api;
  });

  afterEach(async () => {
    await dispose(server);
  });

  /** Stops the server and reads what it stored. */
  async function storedAfterStop(): Promise<StoredEvent[]> {
    assert.equal(await server.stop(), 0, server.log);
    return readStoredEvents(server.dataDir);
  }

  /** A raw body cut at the limit stores its complete lines within the limit, and nothing else. */
  function assertTruncatedStored(stored: StoredEvent[], tag: string): void {
    const raws = stored.map((e) => e._raw).sort();
    assert.equal(raws.length, Math.floor(LIMIT / 100), tag);
    assert.deepEqual(raws, truncationLines(tag, Math.floor(LIMIT / 100)), tag);
  }

  async function timed(key: string, send: () => Promise<Answer>): Promise<Answer> {
    const from = Date.now() * 1000;
    const answer = await send();
    windows.set(key, [from, Date.now() * 1000]);
    return answer;
  }

  describe('answers', () => {
    it('POST /ingest: accepted and failed counts with per-element failures', async () => {
      const body = [
        {
          event: 'native full',
          time: 1700000000.25,
          source: 'app',
          sourcetype: 'json',
          host: 'h1',
          index: 'web',
          fields: { count: 3, ok: true, user: 'bob', ratio: 0.5 },
        },
        { event: 'native defaults' },
        { time: 1700000000 },
        'not an object',
        { event: 'bad time', time: 'yesterday' },
        { event: 42 },
      ];
      const answer = await timed('native defaults', () =>
        post(`${api}/ingest`, JSON.stringify(body), { 'content-type': 'application/json' }),
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.data.accepted, 2);
      assert.equal(answer.body.data.failed, 4);
      assert.deepEqual(
        answer.body.data.errors.map((error: { item: number }) => error.item),
        [2, 3, 4, 5],
      );
      for (const error of answer.body.data.errors)
        assert.ok(typeof error.reason === 'string' && error.reason !== '', JSON.stringify(error));

      const stored = await storedAfterStop();
      assert.equal(stored.length, 2);
      const full = storedByRaw(stored, 'native full');
      assertFields(full, {
        _time: 1700000000_250000,
        source: 'app',
        sourcetype: 'json',
        host: 'h1',
        index: 'web',
        count: 3,
        ok: true,
        user: 'bob',
        ratio: 0.5,
      });
      const plain = storedByRaw(stored, 'native defaults');
      assert.equal(plain.index, 'main');
      const [from, to] = windows.get('native defaults')!;
      assert.ok(plain._time >= from - 1000 && plain._time <= to + 1000, `receive time ${plain._time} in [${from}, ${to}]`);
    });

    it("POST /ingest: a field keeps each value's own type across events", async () => {
      const body = [
        { event: 'typed one', fields: { code: 404, flag: true, mixed: 'text' } },
        { event: 'typed two', fields: { code: 'E404', flag: 'yes', mixed: 1.5 } },
        { event: 'typed three', fields: { code: 0, flag: false, mixed: false } },
      ];
      const answer = await post(`${api}/ingest`, JSON.stringify(body), { 'content-type': 'application/json' });
      assert.deepEqual(answer.body, { data: { accepted: 3, failed: 0 } });

      const stored = await storedAfterStop();
      assert.equal(stored.length, 3);
      assertFields(storedByRaw(stored, 'typed one'), { code: 404, flag: true, mixed: 'text' });
      assertFields(storedByRaw(stored, 'typed two'), { code: 'E404', flag: 'yes', mixed: 1.5 });
      assertFields(storedByRaw(stored, 'typed three'), { code: 0, flag: false, mixed: false });
    });

    it('POST /ingest: parses with no content type, a charset, and a gzip body', async () => {
      const one = (tag: string): string => JSON.stringify([{ event: `native ${tag}`, time: 1700000001 }]);
      for (const [tag, body, headers] of [
        ['no-ct', one('no-ct'), {}],
        ['charset', one('charset'), { 'content-type': 'application/json; charset=utf-8' }],
        ['gzip', gzip(one('gzip')), { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
      ] as [string, string | Buffer, Record<string, string>][]) {
        const answer = await post(`${api}/ingest`, body, headers);
        assert.deepEqual(answer.body, { data: { accepted: 1, failed: 0 } }, `${tag}: ${answer.text}`);
      }

      const stored = await storedAfterStop();
      assert.equal(stored.length, 3);
      for (const tag of ['no-ct', 'charset', 'gzip'])
        assertFields(storedByRaw(stored, `native ${tag}`), { _time: 1700000001_000000, index: 'main' }, tag);
    });

    it('POST /ingest/raw: headers, one event per non-empty line, the pipeline', async () => {
      const body = [
        '2024-01-15T10:00:00Z ERROR disk full raw-1',
        '',
        '{"msg":"json line raw-2","level":"warn","status":502,"ok":false,"ts":"2024-01-15T11:00:00Z"}',
        '   ',
        'INFO plain line raw-3',
        'crlf line raw-4\r',
        '',
      ].join('\n');
      const answer = await timed('raw-3', () =>
        post(`${api}/ingest/raw`, body, { 'content-type': 'text/plain', 'x-source': 'nginx', 'x-source-type': 'access', 'x-index': 'web' }),
      );
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.data.accepted, 4);
      assert.equal(answer.body.data.truncated, false);
      assert.equal(answer.body.data.warning, undefined);

      const stored = await storedAfterStop();
      const labels = { source: 'nginx', sourcetype: 'access', index: 'web' };
      assertFields(storedByRaw(stored, '2024-01-15T10:00:00Z ERROR disk full raw-1'), {
        ...labels,
        _time: isoMicros('2024-01-15T10:00:00Z'),
        level: 'error',
      });
      const json = storedByRaw(stored, '{"msg":"json line raw-2","level":"warn","status":502,"ok":false,"ts":"2024-01-15T11:00:00Z"}');
      assertFields(json, {
        ...labels,
        _time: isoMicros('2024-01-15T11:00:00Z'),
        msg: 'json line raw-2',
        level: 'warn',
        status: 502,
        ok: false,
      });
      const plain = storedByRaw(stored, 'INFO plain line raw-3');
      assertFields(plain, { ...labels, level: 'info' });
      const [from, to] = windows.get('raw-3')!;
      assert.ok(plain._time >= from - 1000 && plain._time <= to + 1000, `receive time ${plain._time} in [${from}, ${to}]`);
      assertFields(storedByRaw(stored, 'crlf line raw-4'), labels);
      assert.equal(stored.length, 4, 'blank lines are not events');
    });

    it('POST /ingest/raw: defaults http/raw/main, no content type and gzip', async () => {
      const plain = await post(`${api}/ingest/raw`, 'default line raw-5\n');
      assert.equal(plain.status, 200, plain.text);
      assert.equal(plain.body.data.accepted, 1);
      const zipped = await post(`${api}/ingest/raw`, gzip('gzip line raw-6\ngzip line raw-7'), { 'content-encoding': 'gzip' });
      assert.equal(zipped.status, 200, zipped.text);
      assert.equal(zipped.body.data.accepted, 2);
      assert.equal(zipped.body.data.truncated, false);

      const stored = await storedAfterStop();
      assert.equal(stored.length, 3);
      for (const raw of ['default line raw-5', 'gzip line raw-6', 'gzip line raw-7']) {
        assertFields(storedByRaw(stored, raw), { source: 'http', sourcetype: 'raw', index: 'main' }, raw);
      }
    });

    it('POST /ingest/raw: a body over ingest.max_body_size is cut after the last complete line (200, truncated)', async () => {
      const lines = truncationLines('trunc', 200); // 20,000 bytes: 163 whole lines fit in 16,384
      const answer = await post(`${api}/ingest/raw`, lines.join('\n') + '\n', { 'x-source': 'trunc' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.data.truncated, true);
      assert.equal(answer.body.data.accepted, Math.floor(LIMIT / 100));
      assert.equal(typeof answer.body.data.warning, 'string');
      assert.ok(answer.body.data.warning.length > 0);

      assertTruncatedStored(await storedAfterStop(), 'trunc');
    });

    it('POST /ingest/raw: a gzip body that inflates past the limit is truncated the same way', async () => {
      const lines = truncationLines('gztrunc', 300);
      const answer = await post(`${api}/ingest/raw`, gzip(lines.join('\n') + '\n'), { 'content-encoding': 'gzip', 'x-source': 'gztrunc' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.data.truncated, true);
      assert.equal(answer.body.data.accepted, Math.floor(LIMIT / 100));
      assert.equal(typeof answer.body.data.warning, 'string');

      assertTruncatedStored(await storedAfterStop(), 'gztrunc');
    });

    it('POST /ingest/raw: a poorly compressed gzip body whose wire size exceeds the limit is truncated, not rejected', async () => {
      // Level 0 (stored blocks): the compressed body is as large as the text, so the cut falls inside the gzip stream.
      const lines = truncationLines('gz0trunc', 300);
      const stored0 = zlib.gzipSync(Buffer.from(lines.join('\n') + '\n'), { level: 0 });
      assert.ok(stored0.length > LIMIT);
      const answer = await post(`${api}/ingest/raw`, stored0, { 'content-encoding': 'gzip', 'x-source': 'gz0trunc' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.data.truncated, true);
      assert.equal(answer.body.data.accepted, Math.floor(LIMIT / 100));
      assert.equal(typeof answer.body.data.warning, 'string');

      assertTruncatedStored(await storedAfterStop(), 'gz0trunc');
    });

    it('POST /ingest/hec: Success answer, bad lines refused and counted', async () => {
      const body = [
        JSON.stringify({
          event: 'hec one',
          time: 1700000100.5,
          host: 'hh',
          source: 'src-h',
          sourcetype: 'st-h',
          index: 'hecidx',
          fields: { region: 'eu', n: 7, b: false },
        }),
        'not json at all',
        JSON.stringify({ event: { message: 'hec object', code: 5, nested: { k: 'v' } }, time: 1700000200 }),
        JSON.stringify({ time: 1700000300 }),
        JSON.stringify({ event: 'hec three', time: '1700000400' }),
      ].join('\n');
      const answer = await post(`${api}/ingest/hec`, body, { 'content-type': 'application/json', authorization: 'Splunk <TOKEN>' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.text, 'Success');
      assert.equal(answer.body.code, 0);
      assert.equal(answer.body.accepted, 3);
      assert.equal(answer.body.failed, 2);
      assert.deepEqual(
        answer.body.errors.map((error: { line: number; code: string }) => [error.line, error.code]),
        [
          [2, 'invalid'],
          [4, 'invalid'],
        ],
      );

      const stored = await storedAfterStop();
      assert.equal(stored.length, 3);
      assertFields(storedByRaw(stored, 'hec one'), {
        _time: 1700000100_500000,
        host: 'hh',
        source: 'src-h',
        sourcetype: 'st-h',
        index: 'hecidx',
        region: 'eu',
        n: 7,
        b: false,
      });
      const object = storedByRaw(stored, JSON.stringify({ message: 'hec object', code: 5, nested: { k: 'v' } }));
      assertFields(object, { _time: 1700000200_000000, index: 'main', message: 'hec object', code: 5, 'nested.k': 'v' });
      assertFields(storedByRaw(stored, 'hec three'), { _time: 1700000400_000000, index: 'main' });
    });

    it('POST /ingest/hec: no content type and gzip', async () => {
      for (const [tag, body, headers] of [
        ['no-ct', JSON.stringify({ event: 'hec no-ct', time: 1700000500 }), {}],
        ['gzip', gzip(JSON.stringify({ event: 'hec gzip', time: 1700000501 })), { 'content-encoding': 'gzip' }],
      ] as [string, string | Buffer, Record<string, string>][]) {
        const answer = await post(`${api}/ingest/hec`, body, headers);
        assert.equal(answer.status, 200, `${tag}: ${answer.text}`);
        assert.equal(answer.body.text, 'Success');
        assert.equal(answer.body.code, 0);
        assert.equal(answer.body.accepted, 1);
      }

      const stored = await storedAfterStop();
      assert.equal(stored.length, 2);
      assertFields(storedByRaw(stored, 'hec no-ct'), { _time: 1700000500_000000 });
      assertFields(storedByRaw(stored, 'hec gzip'), { _time: 1700000501_000000 });
    });

    const bulkBody = (tag: string): string =>
      ndjson([
        { index: { _index: `${tag}-a` } },
        { '@timestamp': '2024-02-01T00:00:01Z', uid: `${tag}-1`, msg: 'first' },
        { create: { _index: `${tag}-a`, _id: `${tag}-given-id` } },
        { timestamp: '2024-02-01T00:00:02Z', uid: `${tag}-2` },
        { index: { _index: `${tag}-b`, _type: '_doc' } },
        { time: '2024-02-01T00:00:03.5Z', uid: `${tag}-3` },
        { index: { _index: `${tag}-b` } },
        { ts: '2024-02-01T00:00:04Z', uid: `${tag}-4` },
        { index: { _index: `${tag}-b` } },
        { datetime: '2024-02-01T00:00:05Z', uid: `${tag}-5`, n: 12, ok: true },
        { delete: { _index: `${tag}-a`, _id: 'x' } },
        { update: { _index: `${tag}-a`, _id: 'y' } },
        { doc: { a: 1 } },
      ]);

    function assertBulkAnswer(answer: Answer, tag: string): void {
      assertElastic(answer, tag);
      const items = bulkItems(answer);
      assert.ok(Number.isInteger(answer.body.took), `took: ${answer.text}`);
      assert.equal(answer.body.errors, true);
      assert.deepEqual(
        items.map(([action, result]) => [action, result.status]),
        [
          ['index', 201],
          ['create', 201],
          ['index', 201],
          ['index', 201],
          ['index', 201],
          ['delete', 400],
          ['update', 400],
        ],
      );
      for (const [, result] of items.slice(0, 5)) assert.ok(typeof result._id === 'string' && result._id !== '', JSON.stringify(result));
      assert.equal(items[1]![1]._id, `${tag}-given-id`);
      assert.equal(new Set(items.slice(0, 5).map(([, result]) => result._id)).size, 5, 'distinct ids');
      for (const [action, result] of items.slice(5)) {
        assert.equal(typeof result.error?.type, 'string', `${action} error: ${JSON.stringify(result)}`);
        assert.ok(typeof result.error.reason === 'string' && result.error.reason.length > 0, `${action} reason: ${JSON.stringify(result)}`);
      }
    }

    /** _index as source, detected timestamps, index main; delete and update store nothing. */
    function assertBulkStored(stored: StoredEvent[], tag: string): void {
      const expected: [number, string, string][] = [
        [1, `${tag}-a`, '2024-02-01T00:00:01Z'],
        [2, `${tag}-a`, '2024-02-01T00:00:02Z'],
        [3, `${tag}-b`, '2024-02-01T00:00:03.5Z'],
        [4, `${tag}-b`, '2024-02-01T00:00:04Z'],
        [5, `${tag}-b`, '2024-02-01T00:00:05Z'],
      ];
      for (const [n, source, iso] of expected) {
        assertFields(storedBy(stored, 'uid', `${tag}-${n}`), { source, index: 'main', _time: isoMicros(iso) }, `${tag}-${n}`);
      }
      assertFields(storedBy(stored, 'uid', `${tag}-5`), { n: 12, ok: true });
      assert.equal(stored.length, 5, `${tag}: delete/update store nothing`);
    }

    it('POST /es/_bulk: per-item statuses, index and create accepted, delete and update fail', async () => {
      assertBulkAnswer(await post(`${api}/es/_bulk`, bulkBody('esb'), { 'content-type': 'application/x-ndjson' }), 'esb');
      assertBulkStored(await storedAfterStop(), 'esb');
    });

    it('POST /ingest/bulk: the same handler', async () => {
      assertBulkAnswer(await post(`${api}/ingest/bulk`, bulkBody('igb'), { 'content-type': 'application/x-ndjson' }), 'igb');
      assertBulkStored(await storedAfterStop(), 'igb');
    });

    it('POST /es/_bulk: the client content types, no content type and gzip', async () => {
      for (const [tag, body, headers] of [
        ['ct-es', ndjson([{ index: { _index: 'ct-es' } }, { uid: 'ct-es' }]), { 'content-type': ES_NDJSON, accept: ES_JSON }],
        ['ct-none', ndjson([{ index: { _index: 'ct-none' } }, { uid: 'ct-none' }]), {}],
        [
          'ct-gzip',
          gzip(ndjson([{ index: { _index: 'ct-gzip' } }, { uid: 'ct-gzip' }])),
          { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
        ],
      ] as [string, string | Buffer, Record<string, string>][]) {
        const answer = await post(`${api}/es/_bulk`, body, headers);
        assertElastic(answer, tag);
        assert.deepEqual(
          bulkItems(answer).map(([action, result]) => [action, result.status]),
          [['index', 201]],
          `${tag}: ${answer.text}`,
        );
        assert.equal(answer.body.errors, false);
      }

      const stored = await storedAfterStop();
      assert.equal(stored.length, 3);
      for (const tag of ['ct-es', 'ct-none', 'ct-gzip']) assertFields(storedBy(stored, 'uid', tag), { source: tag, index: 'main' }, tag);
    });

    it('POST /es/{index}/_doc: 201 with _id and result created', async () => {
      const doc = { '@timestamp': '2024-03-01T00:00:00Z', uid: 'doc-1', level: 'error', bytes: 512 };
      const answer = await post(`${api}/es/docidx/_doc`, JSON.stringify(doc), { 'content-type': ES_JSON, accept: ES_JSON });
      assertElastic(answer, '_doc');
      assert.equal(answer.status, 201, answer.text);
      assert.equal(answer.body.result, 'created');
      assert.ok(typeof answer.body._id === 'string' && answer.body._id !== '', answer.text);
      const plain = await post(`${api}/es/docidx/_doc`, JSON.stringify({ uid: 'doc-2' }));
      assert.equal(plain.status, 201, plain.text);
      assert.equal(plain.body.result, 'created');
      assert.notEqual(plain.body._id, answer.body._id);

      const stored = await storedAfterStop();
      assert.equal(stored.length, 2);
      assertFields(storedBy(stored, 'uid', 'doc-1'), {
        source: 'docidx',
        index: 'main',
        _time: isoMicros('2024-03-01T00:00:00Z'),
        level: 'error',
        bytes: 512,
      });
      assertFields(storedBy(stored, 'uid', 'doc-2'), { source: 'docidx', index: 'main' });
    });

    it('GET /es/: the handshake with version 8.0.0', async () => {
      for (const path of ['/es/', '/es']) {
        const answer = await request(`${api}${path}`, { headers: { accept: ES_JSON } });
        assert.equal(answer.status, 200, answer.text);
        assertElastic(answer, `GET ${path}`);
        assert.equal(answer.body.version.number, '8.0.0');
        assert.equal(answer.body.version.build_flavor, 'default');
        for (const key of ['name', 'cluster_name', 'tagline']) assert.equal(typeof answer.body[key], 'string', key);
      }
    });

    it('GET /es?<query>: the handshake with a query string also carries x-elastic-product', async () => {
      for (const path of ['/es?human=true', '/es/?human=true']) {
        const answer = await request(`${api}${path}`, { headers: { accept: ES_JSON } });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.version.number, '8.0.0');
        assertElastic(answer, `GET ${path}`);
      }
    });

    it('x-elastic-product is on the error answers of the bulk-compatible paths too', async () => {
      const bigBulk = ndjson(
        Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? { index: { _index: 'big' } } : { pad: 'p'.repeat(150) })),
      );
      assert.ok(bigBulk.length > LIMIT);
      const cases: [string, Promise<Answer>, number][] = [
        ['_doc invalid JSON', post(`${api}/es/docidx/_doc`, '{"broken":', { 'content-type': ES_JSON }), 400],
        ['_bulk corrupt gzip', post(`${api}/es/_bulk`, Buffer.from('not gzip'), { 'content-encoding': 'gzip' }), 400],
        ['/ingest/bulk corrupt gzip', post(`${api}/ingest/bulk`, Buffer.from('not gzip'), { 'content-encoding': 'gzip' }), 400],
        ['_bulk too large', post(`${api}/es/_bulk`, bigBulk, { 'content-type': 'application/x-ndjson' }), 413],
        ['/ingest/bulk too large', post(`${api}/ingest/bulk`, bigBulk, { 'content-type': 'application/x-ndjson' }), 413],
        ['_doc too large', post(`${api}/es/docidx/_doc`, JSON.stringify({ pad: 'p'.repeat(LIMIT) }), { 'content-type': ES_JSON }), 413],
        ['unknown es path', request(`${api}/es/docidx/_search`, { method: 'POST', body: '{}' }), 404],
      ];
      for (const [tag, pending, status] of cases) {
        const answer = await pending;
        assert.equal(answer.status, status, `${tag}: ${answer.text}`);
        assertElastic(answer, tag);
      }

      assert.deepEqual(await storedAfterStop(), [], 'the refused requests stored nothing');
    });

    const otlpBody = {
      resourceLogs: [
        {
          resource: {
            attributes: [
              { key: 'service.name', value: { stringValue: 'payments' } },
              { key: 'host.name', value: { stringValue: 'pay-1' } },
              { key: 'deployment.environment', value: { stringValue: 'prod' } },
              { key: 'service.version', value: { stringValue: '2.0.1' } },
              { key: 'k8s.replicas', value: { intValue: '3' } },
            ],
          },
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: '1700000400123456000',
                  body: { stringValue: 'otlp rec one' },
                  severityText: 'error',
                  attributes: [
                    { key: 'http.method', value: { stringValue: 'GET' } },
                    { key: 'retries', value: { intValue: '2' } },
                    { key: 'attempt', value: { intValue: 4 } },
                  ],
                },
                {
                  timeUnixNano: '1700000401000000000',
                  body: { stringValue: 'otlp rec two' },
                  severityText: 'info',
                  attributes: [{ key: 'user', value: { stringValue: 'ann' } }],
                },
              ],
            },
          ],
        },
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'other' } }] },
          scopeLogs: [
            { logRecords: [{ timeUnixNano: '1700000402000000000', body: { stringValue: 'otlp rec three' }, severityText: 'warn' }] },
          ],
        },
      ],
    };

    it('POST /otlp/v1/logs: 200 with an empty body', async () => {
      const answer = await post(`${api}/otlp/v1/logs`, JSON.stringify(otlpBody), { 'content-type': 'application/json' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.text, '');
      const zipped = JSON.stringify({
        resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1700000403000000000', body: { stringValue: 'otlp gzip' } }] }] }],
      });
      const gz = await post(`${api}/otlp/v1/logs`, gzip(zipped), {
        'content-type': 'application/json; charset=utf-8',
        'content-encoding': 'gzip',
      });
      assert.equal(gz.status, 200, gz.text);
      assert.equal(gz.text, '');

      // Every row of the mapping table in docs/api.md.
      const stored = await storedAfterStop();
      assert.equal(stored.length, 4);
      assertFields(storedByRaw(stored, 'otlp rec one'), {
        _time: 1700000400_123456,
        level: 'error',
        source: 'payments',
        host: 'pay-1',
        index: 'prod',
        'resource.service.version': '2.0.1',
        'resource.k8s.replicas': 3,
        'http.method': 'GET',
        retries: 2,
        attempt: 4,
      });
      assertFields(storedByRaw(stored, 'otlp rec two'), {
        _time: 1700000401_000000,
        level: 'info',
        source: 'payments',
        host: 'pay-1',
        index: 'prod',
        user: 'ann',
      });
      const three = storedByRaw(stored, 'otlp rec three');
      assertFields(three, { _time: 1700000402_000000, level: 'warn', source: 'other', index: 'main' });
      assert.equal(three.host, undefined);
      assert.equal(three['resource.service.version'], undefined, 'resources do not leak between resourceLogs');
      assertFields(storedByRaw(stored, 'otlp gzip'), { _time: 1700000403_000000, index: 'main' });
    });

    it('POST /otlp/v1/logs: 415 for application/x-protobuf', async () => {
      const answer = await post(`${api}/otlp/v1/logs`, Buffer.from([0x0a, 0x02, 0x08, 0x01]), { 'content-type': 'application/x-protobuf' });
      assert.equal(answer.status, 415, answer.text);
      assert.equal(typeof answer.body.error.code, 'string');
      assert.equal(typeof answer.body.error.message, 'string');

      assert.deepEqual(await storedAfterStop(), [], 'the refused request stored nothing');
    });
  });
});
