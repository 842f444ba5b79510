import { strict as assert } from 'assert';
import { ApiError } from '../../../node/core/errors';
import { parseRawLines } from '../../../node/ingest/raw';
import { assertValidEvent, ctx, NOW, utc } from './helpers';

describe('ingest raw lines', () => {
  it('one event per non-empty line, CRLF and blank lines handled, defaults applied', () => {
    const { events } = parseRawLines('first\r\n\n  \r\nsecond\nthird', {}, ctx());
    assert.deepEqual(
      events.map((e) => e.raw),
      ['first', 'second', 'third'],
    );
    for (const e of events) {
      assertValidEvent(e);
      assert.equal(e.index, 'main');
      assert.equal(e.time, NOW);
      assert.deepEqual(e.fields, { source: 'http', sourcetype: 'raw' });
    }
  });

  it('keeps leading whitespace and inner carriage returns', () => {
    assert.equal(parseRawLines('  indented\ra', {}, ctx()).events[0]!.raw, '  indented\ra');
  });

  it('uses the headers', () => {
    const { events } = parseRawLines('ERROR x', { source: 'app', sourcetype: 'log4j', index: 'prod-1', host: 'h' }, ctx());
    assert.equal(events[0]!.index, 'prod-1');
    assert.deepEqual(events[0]!.fields, { source: 'app', sourcetype: 'log4j', host: 'h', level: 'error' });
  });

  it('empty header values are defaults', () => {
    const { events } = parseRawLines('x', { source: '', index: '' }, ctx());
    assert.equal(events[0]!.index, 'main');
    assert.equal(events[0]!.fields.source, 'http');
  });

  it('rejects an invalid index with INVALID_REQUEST', () => {
    for (const index of ['Main', '_x', '.x', 'a b', 'x'.repeat(129)]) {
      assert.throws(
        () => parseRawLines('x', { index }, ctx()),
        (e: unknown) => e instanceof ApiError && e.code === 'INVALID_REQUEST',
      );
    }
  });

  it('runs the pipeline: time and level', () => {
    const { events } = parseRawLines('2015-10-18 18:01:47,978 WARN [main] x', {}, ctx());
    assert.equal(events[0]!.time, utc(2015, 10, 18, 18, 1, 47, 978000));
    assert.equal(events[0]!.fields.level, 'warn');
  });

  it('a JSON line may set source and sourcetype unless the headers do', () => {
    const line = '{"source":"svc","sourcetype":"json","host":7}';
    assert.deepEqual(parseRawLines(line, {}, ctx()).events[0]!.fields, { source: 'svc', sourcetype: 'json', host: '7' });
    assert.deepEqual(parseRawLines(line, { source: 'hdr' }, ctx()).events[0]!.fields, { source: 'hdr', sourcetype: 'json', host: '7' });
  });

  it('with the pipeline off: raw lines, receive time, header labels only', () => {
    const { events } = parseRawLines('2015-10-18 18:01:47,978 WARN x\n{"a":1}', {}, ctx({ pipeline: false }));
    assert.deepEqual(
      events.map((e) => e.raw),
      ['2015-10-18 18:01:47,978 WARN x', '{"a":1}'],
    );
    for (const e of events) {
      assert.equal(e.time, NOW);
      assert.deepEqual(e.fields, { source: 'http', sourcetype: 'raw' });
    }
  });

  it('an empty body gives no events', () => {
    assert.deepEqual(parseRawLines('', {}, ctx()).events, []);
    assert.deepEqual(parseRawLines('\n\r\n', {}, ctx()).events, []);
  });

  it('is deterministic for a replayed body', () => {
    const body = 'Oct 11 22:14:15 h a: x\n{"ts":1}\n[10.30 16:49:06] y';
    assert.deepEqual(parseRawLines(body, {}, ctx()), parseRawLines(body, {}, ctx()));
  });
});
