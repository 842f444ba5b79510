import { strict as assert } from 'assert';
import { ApiError } from '../../../node/core/errors';
import { noEventAccepted, parseHecLines, splitConcatenated } from '../../../node/ingest/hec';
import { assertValidEvent, ctx, NOW, utc } from './helpers';

describe('ingest event collector (HEC)', () => {
  it('maps the envelope: time, host, source, sourcetype, index, fields', () => {
    const line = JSON.stringify({
      event: 'hello ERROR',
      time: 1700000000.25,
      host: 'h',
      source: 'src',
      sourcetype: 'st',
      index: 'web',
      fields: { region: 'eu', n: 2, deep: { x: true } },
    });
    const r = parseHecLines(line, ctx());
    assert.equal(r.failed, 0);
    const ev = r.events[0]!;
    assertValidEvent(ev);
    assert.equal(ev.raw, 'hello ERROR');
    assert.equal(ev.time, 1700000000_250000);
    assert.equal(ev.index, 'web');
    assert.deepEqual(ev.fields, { host: 'h', source: 'src', sourcetype: 'st', region: 'eu', n: 2, 'deep.x': true, level: 'error' });
  });

  it('accepts time as a numeric string and defaults the labels', () => {
    const ev = parseHecLines('{"event":"x","time":"1700000000"}', ctx()).events[0]!;
    assert.equal(ev.time, 1700000000_000000);
    assert.equal(ev.index, 'main');
    assert.deepEqual(ev.fields, { source: 'http', sourcetype: 'hec' });
  });

  it('string events run the pipeline; detection only when no time was given', () => {
    const [a, b] = parseHecLines(
      '{"event":"2003-10-11T22:14:15Z WARN x"}\n{"event":"2003-10-11T22:14:15Z WARN x","time":1700000000}',
      ctx(),
    ).events;
    assert.equal(a!.time, utc(2003, 10, 11, 22, 14, 15));
    assert.equal(b!.time, 1700000000_000000);
    assert.equal(b!.fields.level, 'warn');
  });

  it('a level in fields is never overwritten by detection', () => {
    const ev = parseHecLines('{"event":"ERROR x","fields":{"level":"info"}}', ctx()).events[0]!;
    assert.equal(ev.fields.level, 'info');
  });

  it('object events: raw is the JSON text, top-level keys become fields', () => {
    const ev = parseHecLines(
      '{"event":{"message":"m","status":500,"ts":"2024-01-02T03:04:05Z","level":"Error","user":{"id":7}},"host":"env"}',
      ctx(),
    ).events[0]!;
    assert.equal(ev.raw, '{"message":"m","status":500,"ts":"2024-01-02T03:04:05Z","level":"Error","user":{"id":7}}');
    assert.equal(ev.time, utc(2024, 1, 2, 3, 4, 5));
    assert.deepEqual(ev.fields, {
      host: 'env',
      message: 'm',
      status: 500,
      ts: '2024-01-02T03:04:05Z',
      level: 'error',
      'user.id': 7,
      source: 'http',
      sourcetype: 'hec',
    });
  });

  it('object events with the pipeline off: fields only, no time or level pickup', () => {
    const ev = parseHecLines('{"event":{"ts":"2024-01-02T03:04:05Z","level":"Error"}}', ctx({ pipeline: false })).events[0]!;
    assert.equal(ev.time, NOW);
    assert.equal(ev.fields.level, 'Error');
  });

  it('number and boolean events become their text', () => {
    const { events } = parseHecLines('{"event":42}\n{"event":true}\n{"event":[1,2]}', ctx());
    assert.deepEqual(
      events.map((e) => e.raw),
      ['42', 'true', '[1,2]'],
    );
  });

  it('splits objects concatenated on one line', () => {
    const r = parseHecLines('{"event":"a"}{"event":"b"} {"event":"c"}\n{"event":"d"}', ctx());
    assert.deepEqual(
      r.events.map((e) => e.raw),
      ['a', 'b', 'c', 'd'],
    );
    const tricky = splitConcatenated('{"event":"}{\\"x"}{"event":"[{"}');
    assert.deepEqual(
      tricky.map((p) => (p.ok ? (p.value as { event: string }).event : p.message)),
      ['}{"x', '[{'],
    );
  });

  it('skips and counts bad lines with 1-based line numbers', () => {
    const body = [
      '{"event":"ok"}',
      'not json',
      '[1,2]',
      '{"time":1}',
      '{"event":""}',
      '{"event":null}',
      '',
      '{"event":"x","time":"soon"}',
      '{"event":"x","index":"Bad"}',
      '{"event":"x","fields":[1]}',
      '{"event":"y"} trailing',
      '{"event":"z"',
    ].join('\n');
    const r = parseHecLines(body, ctx());
    assert.deepEqual(
      r.events.map((e) => e.raw),
      ['ok', 'y'],
    );
    assert.equal(r.failed, 10);
    assert.deepEqual(r.refused, { invalid: 10 });
    assert.deepEqual(
      r.errors.map((e) => e.line),
      [2, 3, 4, 5, 6, 8, 9, 10, 11, 12],
    );
    assert.match(r.errors[0]!.reason, /invalid JSON/);
    assert.match(r.errors[2]!.reason, /'event' is required/);
  });

  it('a non-string index skips its line with a reason, even an object with a non-function toString (found by the fuzzer)', () => {
    const body = ['{"event":"a","index":{"toString":false}}', '{"event":"b","index":7}', '{"event":"c","index":"web"}'].join('\n');
    const r = parseHecLines(body, ctx());
    assert.deepEqual(
      r.events.map((e) => [e.raw, e.index]),
      [['c', 'web']],
    );
    assert.deepEqual(r.errors, [
      { line: 1, code: 'invalid', reason: "'index' must be a string" },
      { line: 2, code: 'invalid', reason: "'index' must be a string" },
    ]);
  });

  it('a body whose every line is bad is refused whole, with the first reason and the error list', () => {
    const r = parseHecLines('nope\n{"event":null}', ctx());
    assert.deepEqual(r.events, []);
    const error = noEventAccepted(r.failed, r.errors);
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'INVALID_JSON');
    assert.match(error.message, /line 1: invalid JSON/);
    assert.equal(error.details.failed, 2);
    assert.deepEqual(
      (error.details.errors as { line: number }[]).map((e) => e.line),
      [1, 2],
    );
  });

  it('an empty body is no events, not an error', () => {
    assert.deepEqual(parseHecLines('\n \n', ctx()), { events: [], failed: 0, errors: [], refused: {} });
  });
});
