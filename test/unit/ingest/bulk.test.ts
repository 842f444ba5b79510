import { strict as assert } from 'assert';
import { ApiError } from '../../../node/core/errors';
import { parseBulk, parseEsDoc, type BulkItem, type BulkItemResult } from '../../../node/ingest/bulk';
import { assertValidEvent, ctx, NOW, utc } from './helpers';

const nd = (...lines: unknown[]): string => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
const entry = (item: BulkItem): [string, BulkItemResult] => Object.entries(item)[0] as [string, BulkItemResult];

describe('ingest bulk (ES compatible)', () => {
  it('maps index and create documents', () => {
    const body = nd(
      { index: { _index: 'web-logs', _type: '_doc', _id: 'abc' } },
      { '@timestamp': '2024-01-02T03:04:05.5Z', message: 'hi', host: { name: 'h1' }, log: { level: 'WARNING' }, tags: ['a', 'b'], n: null },
      { create: { _index: 'other' } },
      { timestamp: 1700000000123, severity: 'error', host: 'h2', status: 500 },
    );
    const r = parseBulk(body, ctx(), 'seed');
    assert.equal(r.errors, false);
    assert.equal(r.events.length, 2);
    r.events.forEach(assertValidEvent);
    const [a, b] = r.events;
    assert.equal(a!.index, 'main');
    assert.equal(a!.raw, 'hi', 'the message is _raw');
    assert.equal(a!.time, utc(2024, 1, 2, 3, 4, 5, 500000));
    assert.deepEqual(a!.fields, {
      source: 'web-logs',
      level: 'warn',
      host: 'h1',
      '@timestamp': '2024-01-02T03:04:05.5Z',
      message: 'hi',
      'host.name': 'h1',
      'log.level': 'WARNING',
      tags: '["a","b"]',
    });
    assert.equal(b!.time, 1700000000_123000);
    assert.deepEqual(b!.fields, { source: 'other', level: 'error', host: 'h2', timestamp: 1700000000123, severity: 'error', status: 500 });
    assert.deepEqual(r.items, [
      {
        index: {
          _index: 'web-logs',
          _id: 'abc',
          _version: 1,
          result: 'created',
          _shards: { total: 1, successful: 1, failed: 0 },
          _seq_no: 0,
          _primary_term: 1,
          status: 201,
        },
      },
      {
        create: {
          _index: 'other',
          _id: 'seed-1',
          _version: 1,
          result: 'created',
          _shards: { total: 1, successful: 1, failed: 0 },
          _seq_no: 1,
          _primary_term: 1,
          status: 201,
        },
      },
    ]);
  });

  it('detects the time from each documented key, else uses the receive time', () => {
    const docs = [{ time: '2024-01-02T03:04:05' }, { ts: 1700000000 }, { datetime: '1700000000.5' }, { other: 1 }, { time: 'garbage' }];
    const body = nd(...docs.flatMap((d) => [{ index: {} }, d]));
    const r = parseBulk(body, ctx(), 's');
    assert.deepEqual(
      r.events.map((e) => e.time),
      [utc(2024, 1, 2, 3, 4, 5), 1700000000_000000, 1700000000_500000, NOW, NOW],
    );
    assert.equal(entry(r.items[0]!)[1]._index, 'main');
    assert.equal(r.events[0]!.fields.source, undefined);
  });

  it('the action _index wins over a document source key; reserved keys are skipped', () => {
    const r = parseBulk(nd({ index: { _index: 'x' } }, { source: 'doc', index: 3, _time: 1 }), ctx(), 's');
    assert.deepEqual(r.events[0]!.fields, { source: 'x' });
  });

  it('fails update, delete and unknown actions per item and keeps going', () => {
    const body = nd(
      { update: { _index: 'a', _id: '1' } },
      { doc: { x: 1 } },
      { delete: { _index: 'a', _id: '2' } },
      { upsert: { _index: 'a' } },
      { x: 1 },
      { index: { _index: 'a' } },
      { ok: true },
    );
    const r = parseBulk(body, ctx(), 's');
    assert.equal(r.errors, true);
    assert.equal(r.events.length, 1);
    assert.deepEqual(
      r.items.map((i) => entry(i)[0]),
      ['update', 'delete', 'index', 'index'],
    );
    assert.deepEqual(
      r.items.map((i) => entry(i)[1].status),
      [400, 400, 400, 201],
    );
    assert.equal(entry(r.items[0]!)[1]._id, '1');
    assert.equal(entry(r.items[0]!)[1].error!.type, 'illegal_argument_exception');
    assert.match(entry(r.items[2]!)[1].error!.reason, /unknown action \[upsert\]/);
  });

  it('bad document lines fail that item; resync after a bad action line', () => {
    const body = nd(
      { index: {} },
      '{not json',
      '{broken action',
      { a: 1 },
      'also broken',
      { index: { _id: 'r' } },
      { b: 2 },
      { index: {} },
      '[1,2]',
      { index: {} },
      { c: 3 },
    );
    const r = parseBulk(body, ctx(), 's');
    const summary = r.items.map((i) => [entry(i)[1].status, entry(i)[1].error?.type]);
    assert.deepEqual(summary, [
      [400, 'mapper_parsing_exception'],
      [400, 'parse_exception'],
      [400, 'parse_exception'],
      [201, undefined],
      [400, 'mapper_parsing_exception'],
      [201, undefined],
    ]);
    assert.deepEqual(
      r.events.map((e) => e.fields),
      [{ b: 2 }, { c: 3 }],
    );
    assert.equal(entry(r.items[3]!)[1]._id, 'r');
  });

  it('ignores keys after the action, as Elasticsearch does (winston-elasticsearch adds "attempts")', () => {
    const body = nd(
      { index: { _index: 'logs-2024.06.15', pipeline: null }, attempts: 0 },
      { message: 'first', severity: 'info' },
      { create: { _index: 'ds' }, attempts: 3, extra: { any: 'thing' } },
      { message: 'second' },
    );
    const r = parseBulk(body, ctx(), 's');
    assert.equal(r.errors, false, JSON.stringify(r.items));
    assert.deepEqual(
      r.items.map((i) => [entry(i)[0], entry(i)[1]._index, entry(i)[1].status]),
      [
        ['index', 'logs-2024.06.15', 201],
        ['create', 'ds', 201],
      ],
    );
    assert.deepEqual(
      r.events.map((e) => [e.raw, e.fields.source]),
      [
        ['first', 'logs-2024.06.15'],
        ['second', 'ds'],
      ],
    );
  });

  it('a failed item names the _index it was sent with', () => {
    const body =
      [
        JSON.stringify({ upsert: { _index: 'unknown-action' } }),
        JSON.stringify({ x: 1 }),
        JSON.stringify({ attempts: 0, index: { _index: 'action-second' } }),
        JSON.stringify({ x: 2 }),
        '{"index":{"_index":"cut\\"short"}',
        JSON.stringify({ x: 3 }),
        JSON.stringify({ delete: { _index: 'deleted' } }),
        JSON.stringify({ index: { _index: 'bad-doc' } }),
        '{not json',
        JSON.stringify({ index: 'flat' }),
        JSON.stringify({ x: 4 }),
      ].join('\n') + '\n';
    const r = parseBulk(body, ctx(), 's', 'path-index');
    assert.deepEqual(
      r.items.map((i) => [entry(i)[1]._index, entry(i)[1].status]),
      [
        ['unknown-action', 400],
        ['action-second', 400],
        ['cut"short', 400],
        ['deleted', 400],
        ['bad-doc', 400],
        ['path-index', 400],
      ],
    );
    assert.equal(r.events.length, 0);
  });

  it('an action without a document line fails', () => {
    const r = parseBulk('{"index":{}}', ctx(), 's');
    assert.equal(r.errors, true);
    assert.equal(entry(r.items[0]!)[1].status, 400);
  });

  it('tolerates CRLF, blank lines and a missing final newline', () => {
    const r = parseBulk('{"index":{"_index":"a"}}\r\n\r\n{"m":1}\r\n{"index":{"_index":"a"}}\n{"m":2}', ctx(), 's');
    assert.equal(r.events.length, 2);
    assert.equal(r.events[0]!.raw, '{"m":1}');
  });

  it('numeric _id is echoed as a string; ids are deterministic', () => {
    const body = nd({ index: { _id: 12 } }, {}, { index: {} }, {});
    const r = parseBulk(body, ctx(), 'k');
    assert.deepEqual(
      r.items.map((i) => entry(i)[1]._id),
      ['12', 'k-1'],
    );
    assert.deepEqual(parseBulk(body, ctx(), 'k'), r);
  });

  it('an empty body is an empty result', () => {
    assert.deepEqual(parseBulk('', ctx(), 's'), { events: [], items: [], errors: false, refused: {} });
  });
});

describe('ingest single document (ES _doc)', () => {
  it('maps the document with the path index as source', () => {
    const { event, refusal, id } = parseEsDoc(
      '{"@timestamp":"2024-01-02T03:04:05Z","level":"info","msg":"m"}\n',
      'my-index',
      ctx(),
      'seed',
    );
    assert.equal(refusal, null);
    assert.ok(event !== null);
    assertValidEvent(event);
    assert.equal(id, 'seed-0');
    assert.equal(event.raw, 'm', 'the message is _raw');
    assert.equal(event.time, utc(2024, 1, 2, 3, 4, 5));
    assert.equal(event.index, 'main');
    assert.deepEqual(event.fields, { source: 'my-index', level: 'info', '@timestamp': '2024-01-02T03:04:05Z', msg: 'm' });
  });

  it('rejects anything but one JSON object', () => {
    for (const body of ['', '[1]', '"x"', '{"a":1}\n{"b":2}', '{bad']) {
      assert.throws(
        () => parseEsDoc(body, 'i', ctx(), 's'),
        (e: unknown) => e instanceof ApiError && e.code === 'INVALID_JSON',
        body,
      );
    }
  });
});
