/**
 * The shipper key table (document-keys.ts) on the documents each shipper sends by default, through
 * the bulk and `_doc` parsers, plus properties: a message becomes `_raw` only when no key is lost.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { parseBulk, parseEsDoc } from '../../../node/ingest/bulk';
import { parseHecLines } from '../../../node/ingest/hec';
import { parseRawLines } from '../../../node/ingest/raw';
import { RESERVED_FIELD_NAMES } from '../../../node/ingest/common';
import { MESSAGE_KEYS } from '../../../node/ingest/document-keys';
import { assertValidEvent, ctx, NOW, utc } from './helpers';

const nd = (...lines: unknown[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

/** The one event of a one-document bulk body. */
function bulkEvent(index: string, doc: Record<string, unknown>) {
  const r = parseBulk(nd({ index: { _index: index } }, doc), ctx(), 's');
  assert.equal(r.errors, false, JSON.stringify(r.items));
  assert.equal(r.events.length, 1);
  assertValidEvent(r.events[0]!);
  return r.events[0]!;
}

describe('shipper document keys (bulk and _doc)', () => {
  it('rsyslog omelasticsearch default template StdJSONFmt: timereported, fromhost, priority, message', () => {
    // The template's example document (rsyslog omelasticsearch docs, "template" parameter).
    const doc = {
      message: ' this is a test message',
      fromhost: 'test-host',
      facility: 'user',
      priority: 'info',
      timereported: '2013-03-12T18:05:01.344864+02:00',
      timegenerated: '2013-03-12T18:05:02.000000+02:00',
    };
    const ev = bulkEvent('system', doc);
    assert.equal(ev.time, utc(2013, 3, 12, 16, 5, 1, 344864));
    assert.equal(ev.raw, ' this is a test message');
    assert.deepEqual(ev.fields, { source: 'system', host: 'test-host', level: 'info', ...doc });
  });

  it('syslog-ng elasticsearch-http default template: HOST, PRIORITY, MESSAGE, ISODATE', () => {
    // $(format-json --scope rfc5424 --exclude DATE --key ISODATE @timestamp=${ISODATE})
    const doc = {
      PROGRAM: 'sshd',
      PRIORITY: 'err',
      PID: '4242',
      MESSAGE: 'Failed password for root',
      ISODATE: '2024-05-06T07:08:09+02:00',
      HOST: 'db-2',
      FACILITY: 'auth',
      '@timestamp': '2024-05-06T07:08:09+02:00',
    };
    const ev = bulkEvent('syslog-ng', doc);
    assert.equal(ev.time, utc(2024, 5, 6, 5, 8, 9));
    assert.equal(ev.raw, 'Failed password for root');
    assert.deepEqual(ev.fields, { source: 'syslog-ng', host: 'db-2', level: 'error', ...doc });
    const { ['@timestamp']: _, ...isoOnly } = doc;
    assert.equal(bulkEvent('s', isoOnly).time, utc(2024, 5, 6, 5, 8, 9), 'ISODATE alone gives the time');
  });

  it('syslog severities: text names, a numeric severity or PRI (% 8), as numbers or decimal text', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ PRIORITY: 'notice' }, 'notice'],
      [{ PRIORITY: 'warning' }, 'warn'],
      [{ PRIORITY: 'crit' }, 'critical'],
      [{ PRIORITY: 'emerg' }, 'fatal'],
      [{ PRIORITY: 'alert' }, 'critical'],
      [{ PRIORITY: '6' }, 'info'],
      [{ priority: 3 }, 'error'],
      [{ priority: 11 }, 'error'],
      [{ priority: '165' }, 'notice'],
      [{ severity: 4 }, 'warn'],
      [{ priority: 'debug' }, 'debug'],
    ];
    for (const [doc, level] of cases) assert.equal(bulkEvent('x', doc).fields.level, level, JSON.stringify(doc));
    assert.equal(bulkEvent('x', { priority: -1 }).fields.level, undefined, 'a negative number is no severity');
  });

  it('pino: numeric level, hostname, msg, time', () => {
    const doc = { level: 50, time: 1717243200123, pid: 77, hostname: 'api-1', msg: 'request failed', reqId: 'r-9' };
    const ev = bulkEvent('pino', doc);
    assert.equal(ev.time, 1717243200_123000);
    assert.equal(ev.raw, 'request failed');
    assert.deepEqual(ev.fields, {
      source: 'pino',
      level: 'error',
      host: 'api-1',
      time: 1717243200123,
      pid: 77,
      hostname: 'api-1',
      msg: 'request failed',
      reqId: 'r-9',
    });
  });

  it('Elastic Common Schema: host.name, log.level, message, dotted or nested', () => {
    const dotted = {
      '@timestamp': '2024-06-01T10:00:00.5Z',
      'log.level': 'WARN',
      message: 'disk low',
      'host.name': 'web-3',
      'ecs.version': '8.11.0',
    };
    const ev = bulkEvent('ecs', dotted);
    assert.equal(ev.time, utc(2024, 6, 1, 10, 0, 0, 500000));
    assert.equal(ev.raw, 'disk low');
    assert.deepEqual(ev.fields, { source: 'ecs', level: 'warn', host: 'web-3', ...dotted });
    const nested = {
      '@timestamp': '2024-06-01T10:00:00Z',
      log: { level: 'error', logger: 'app' },
      message: 'boom',
      host: { name: 'web-4', ip: '10.0.0.4' },
    };
    const { event } = parseEsDoc(JSON.stringify(nested), 'ecs-doc', ctx(), 's');
    assert.ok(event !== null, 'the document is stored');
    assert.equal(event.raw, 'boom');
    assert.deepEqual(event.fields, {
      source: 'ecs-doc',
      level: 'error',
      host: 'web-4',
      '@timestamp': '2024-06-01T10:00:00Z',
      'log.level': 'error',
      'log.logger': 'app',
      message: 'boom',
      'host.name': 'web-4',
      'host.ip': '10.0.0.4',
    });
    assert.equal(
      bulkEvent('x', { host: { hostname: 'ecs-logging' }, message: 'm' }).fields.host,
      'ecs-logging',
      'host.hostname (ecs-logging libraries)',
    );
    assert.equal(bulkEvent('x', { 'event.original': '<13>orig line', message: 'parsed' }).raw, '<13>orig line', 'event.original first');
  });

  it('winston-elasticsearch default transformer: severity, message, fields', () => {
    const doc = { '@timestamp': '2024-06-01T10:00:00.000Z', message: 'hello', severity: 'warn', fields: { user: 'u1', n: 2 } };
    const ev = bulkEvent('logs-2024.06.01', doc);
    assert.equal(ev.raw, 'hello');
    assert.deepEqual(ev.fields, {
      source: 'logs-2024.06.01',
      level: 'warn',
      '@timestamp': '2024-06-01T10:00:00.000Z',
      message: 'hello',
      severity: 'warn',
      'fields.user': 'u1',
      'fields.n': 2,
    });
  });

  it('earlier keys of a target win: host before hostname, level before severity, message before msg', () => {
    const ev = bulkEvent('x', { hostname: 'second', host: 'first', severity: 'error', level: 'info', msg: 'later', message: 'earlier' });
    assert.deepEqual([ev.fields.host, ev.fields.level, ev.raw], ['first', 'info', 'earlier']);
    assert.equal(bulkEvent('x', { message: '   ', msg: 'text' }).raw, 'text', 'a blank message is no text');
    assert.equal(bulkEvent('x', { message: 42, log: 'docker line' }).raw, 'docker line', 'only strings are messages');
  });

  it('_raw stays the document line when there is no message or a key would be lost', () => {
    for (const doc of [{ a: 1 }, { message: 'm', source: 'own-source' }, { message: 'm', _time: 5 }, { message: 'm', index: 'x' }]) {
      assert.equal(bulkEvent('idx', doc).raw, JSON.stringify(doc), JSON.stringify(doc));
    }
    assert.equal(bulkEvent('idx', { message: 'm', source: 'idx' }).raw, 'm', 'a source equal to _index loses nothing');
    assert.equal(bulkEvent('idx', { message: 'm', source: { ip: '10.1.1.1' } }).raw, 'm', 'ECS source.ip is a field of its own');
    const wide = Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`k${i}`, i]));
    const refused = parseBulk(nd({ index: { _index: 'idx' } }, { message: 'm', ...wide }), ctx(), 's');
    assert.deepEqual(
      [refused.events.length, Object.values(refused.items[0] ?? {})[0]?.status],
      [0, 400],
      'an event over the field limit is refused whole, never cut',
    );
  });

  it('the same keys give time, host and level to JSON lines of raw ingest and event-collector object events', () => {
    const pinoLine = JSON.stringify({ level: 40, time: 1717243200123, hostname: 'api-2', msg: 'slow' });
    const raw = parseRawLines(pinoLine, {}, ctx()).events;
    assert.equal(raw.length, 1);
    assert.deepEqual(
      [raw[0]!.raw, raw[0]!.time, raw[0]!.fields.host, raw[0]!.fields.level],
      [pinoLine, 1717243200_123000, 'api-2', 'warn'],
    );
    const rsyslog = { message: ' hi', fromhost: 'r-1', priority: 'err', timereported: '2024-06-01T00:00:00Z' };
    const hec = parseHecLines(JSON.stringify({ event: rsyslog }), ctx()).events;
    assert.equal(hec.length, 1);
    assert.deepEqual(
      [hec[0]!.raw, hec[0]!.time, hec[0]!.fields.host, hec[0]!.fields.level],
      [JSON.stringify(rsyslog), utc(2024, 6, 1), 'r-1', 'error'],
    );
  });

  it('property: _raw is the first message when every key is kept, the line otherwise; no event time is invented', () => {
    const key = fc.oneof(
      fc.constantFrom(...MESSAGE_KEYS, 'source', 'index', '_time', 'host', 'level', 'a', 'b.c'),
      fc.string({ maxLength: 6 }),
    );
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
    );
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 8 }), (doc) => {
        const line = JSON.stringify(doc);
        const r = parseBulk(`{"index":{"_index":"p"}}\n${line}\n`, ctx(), 's');
        assert.equal(r.events.length, 1);
        const ev = r.events[0]!;
        assertValidEvent(ev);
        const lost = Object.entries(doc).some(
          ([k, v]) => v !== null && (RESERVED_FIELD_NAMES.has(k) || (k === 'source' && typeof v !== 'object' && v !== 'p')),
        );
        const ecsOriginal =
          doc.event !== null && typeof doc.event === 'object' ? (doc.event as Record<string, unknown>).original : undefined;
        const candidates = ['event.original' in doc ? doc['event.original'] : ecsOriginal, doc.message, doc.msg, doc.MESSAGE, doc.log];
        const message = candidates.find((m): m is string => typeof m === 'string' && m.trim() !== '');
        assert.equal(ev.raw, message !== undefined && !lost ? message : line);
        if (!('@timestamp' in doc) && !('timestamp' in doc) && !('time' in doc) && !('ts' in doc)) assert.equal(ev.time, NOW);
      }),
      { numRuns: 500 },
    );
  });
});
