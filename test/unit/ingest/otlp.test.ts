import { strict as assert } from 'assert';
import { ApiError } from '../../../node/core/errors';
import { anyValueToJs, nanosToMicros, parseOtlpLogs } from '../../../node/ingest/otlp';
import { assertValidEvent, ctx, NOW } from './helpers';

const str = (v: string) => ({ stringValue: v });

function request(records: unknown[], resourceAttrs: unknown[] = [], scope: unknown = { name: 'my.lib', version: '1.2' }): string {
  return JSON.stringify({ resourceLogs: [{ resource: { attributes: resourceAttrs }, scopeLogs: [{ scope, logRecords: records }] }] });
}

describe('ingest OTLP logs (JSON)', () => {
  it('maps the table of docs/api.md', () => {
    const body = request(
      [
        {
          timeUnixNano: '1700000000123456789',
          observedTimeUnixNano: '1700000001000000000',
          severityText: 'WARNING',
          severityNumber: 13,
          body: str('disk almost full'),
          traceId: '5b8efff798038103d269b633813fc60c',
          spanId: 'eee19b7ec3c1b174',
          attributes: [
            { key: 'http.status_code', value: { intValue: '503' } },
            { key: 'ratio', value: { doubleValue: 0.5 } },
            { key: 'ok', value: { boolValue: false } },
            { key: 'tags', value: { arrayValue: { values: [str('a'), { intValue: 2 }] } } },
            {
              key: 'user',
              value: {
                kvlistValue: {
                  values: [
                    { key: 'id', value: { intValue: 7 } },
                    { key: 'geo', value: { kvlistValue: { values: [{ key: 'cc', value: str('FR') }] } } },
                  ],
                },
              },
            },
            { key: 'blob', value: { bytesValue: 'aGk=' } },
            { key: 'huge', value: { intValue: '9007199254740993' } },
            { key: 'empty', value: {} },
          ],
        },
      ],
      [
        { key: 'service.name', value: str('checkout') },
        { key: 'host.name', value: str('node-1') },
        { key: 'deployment.environment', value: str('Prod') },
        { key: 'k8s.pod.name', value: str('pod-1') },
        { key: 'process.pid', value: { intValue: 42 } },
      ],
    );
    const { events } = parseOtlpLogs(body, ctx());
    assert.equal(events.length, 1);
    const ev = events[0]!;
    assertValidEvent(ev);
    assert.equal(ev.time, 1700000000_123457);
    assert.equal(ev.raw, 'disk almost full');
    assert.equal(ev.index, 'prod');
    assert.deepEqual(ev.fields, {
      'http.status_code': 503,
      ratio: 0.5,
      ok: false,
      tags: '["a",2]',
      'user.id': 7,
      'user.geo.cc': 'FR',
      blob: 'aGk=',
      huge: '9007199254740993',
      source: 'checkout',
      host: 'node-1',
      'resource.k8s.pod.name': 'pod-1',
      'resource.process.pid': 42,
      'scope.name': 'my.lib',
      'scope.version': '1.2',
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
      level: 'warn',
    });
  });

  it('time falls back to observedTimeUnixNano, then the receive time', () => {
    const { events } = parseOtlpLogs(
      request([
        { timeUnixNano: '0', observedTimeUnixNano: '1700000000000000000', body: str('a') },
        { observedTimeUnixNano: 1700000000000000000, body: str('b') },
        { timeUnixNano: 'soon', body: str('c') },
        { body: str('d') },
        { timeUnixNano: '99999999999999999999', body: str('e') },
      ]),
      ctx(),
    );
    assert.deepEqual(
      events.map((e) => e.time),
      [1700000000_000000, 1700000000_000000, NOW, NOW, NOW],
    );
  });

  it('severityNumber gives the level when there is no severityText', () => {
    const nums = [1, 5, 9, 13, 17, 21, 24, 0, 'SEVERITY_NUMBER_ERROR2', 'SEVERITY_NUMBER_INFO'];
    const { events } = parseOtlpLogs(request(nums.map((n) => ({ severityNumber: n, body: str('x') }))), ctx());
    assert.deepEqual(
      events.map((e) => e.fields.level),
      ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'fatal', undefined, 'error', 'info'],
    );
    const text = parseOtlpLogs(request([{ severityText: 'Information', severityNumber: 17, body: str('x') }]), ctx());
    assert.equal(text.events[0]!.fields.level, 'info');
  });

  it('non-string bodies become text', () => {
    const bodies = [
      { intValue: '12' },
      { doubleValue: 1.5 },
      { boolValue: true },
      { kvlistValue: { values: [{ key: 'a', value: str('b') }] } },
      { arrayValue: { values: [{ intValue: 1 }] } },
      {},
      undefined,
    ];
    const { events } = parseOtlpLogs(request(bodies.map((b) => ({ body: b }))), ctx());
    assert.deepEqual(
      events.map((e) => e.raw),
      ['12', '1.5', 'true', '{"a":"b"}', '[1]', '', ''],
    );
  });

  it('a structured (kvlist) body becomes fields, flattened with dots, as well as its JSON text in _raw', () => {
    const kv = (key: string, value: unknown) => ({ key, value });
    const body = {
      kvlistValue: {
        values: [
          kv('event', str('login')),
          kv('user', { kvlistValue: { values: [kv('id', { intValue: '42' }), kv('admin', { boolValue: false })] } }),
          kv('took_ms', { doubleValue: 12.5 }),
          kv('order', str('from-body')),
          kv('_raw', str('reserved')),
        ],
      },
    };
    const { events } = parseOtlpLogs(request([{ body, attributes: [kv('order', str('from-attribute'))] }]), ctx());
    assert.equal(events.length, 1);
    assertValidEvent(events[0]!);
    assert.equal(events[0]!.raw, '{"event":"login","user":{"id":42,"admin":false},"took_ms":12.5,"order":"from-body","_raw":"reserved"}');
    const { fields } = events[0]!;
    assert.deepEqual(
      [fields.event, fields['user.id'], fields['user.admin'], fields.took_ms, fields.order, fields._raw],
      ['login', 42, false, 12.5, 'from-attribute', undefined],
      'attributes win over body keys; reserved names stay only in _raw',
    );
  });

  it('every AnyValue kind maps, in attributes and in a structured body', () => {
    const kinds: [string, unknown, unknown][] = [
      ['s', str('text'), 'text'],
      ['b', { boolValue: true }, true],
      ['i_text', { intValue: '-17' }, -17],
      ['i_number', { intValue: 9007199254740991 }, 9007199254740991],
      ['i_big', { intValue: '9223372036854775807' }, '9223372036854775807'],
      ['d', { doubleValue: 0.25 }, 0.25],
      ['d_text', { doubleValue: '2.5' }, 2.5],
      ['d_inf', { doubleValue: 'Infinity' }, 'Infinity'],
      ['bytes', { bytesValue: 'AAEC/w==' }, 'AAEC/w=='],
      [
        'arr',
        {
          arrayValue: { values: [{ intValue: '1' }, str('two'), { kvlistValue: { values: [{ key: 'k', value: { boolValue: false } }] } }] },
        },
        '[1,"two",{"k":false}]',
      ],
      ['nested', { kvlistValue: { values: [{ key: 'deep', value: { doubleValue: 1.5 } }] } }, undefined],
    ];
    const attributes = kinds.map(([key, value]) => ({ key, value }));
    const { events } = parseOtlpLogs(
      request([{ body: str('attrs'), attributes }, { body: { kvlistValue: { values: attributes } } }]),
      ctx(),
    );
    assert.equal(events.length, 2);
    for (const ev of events) {
      for (const [key, , expected] of kinds) {
        if (expected !== undefined) assert.strictEqual(ev.fields[key], expected, `${key} (${ev.raw.slice(0, 20)})`);
      }
      assert.equal(ev.fields['nested.deep'], 1.5);
    }
  });

  it('a record attribute with an empty or reserved name refuses the record, naming it; a body key only stays in _raw', () => {
    const result = parseOtlpLogs(
      request([
        { body: str('kept'), attributes: [{ key: 'ok', value: str('1') }] },
        { body: str('attr index'), attributes: [{ key: 'index', value: str('other') }] },
        { body: str('attr empty'), attributes: [{ key: '', value: str('x') }] },
        {
          body: {
            kvlistValue: {
              values: [
                { key: '_raw', value: str('inner') },
                { key: 'm', value: str('v') },
              ],
            },
          },
        },
      ]),
      ctx(),
    );
    assert.deepEqual(
      result.events.map((ev) => ev.raw),
      ['kept', '{"_raw":"inner","m":"v"}'],
    );
    assert.equal(result.events[1]!.fields.m, 'v');
    assert.equal(result.rejected, 2);
    assert.match(result.errors[0]!.reason, /field 'index' uses a reserved name/);
    assert.match(result.errors[1]!.reason, /a field name is empty/);
  });

  it('an environment that is not an index name goes to main and stays a field', () => {
    const { events } = parseOtlpLogs(request([{ body: str('x') }], [{ key: 'deployment.environment.name', value: str('QA env') }]), ctx());
    assert.equal(events[0]!.index, 'main');
    assert.equal(events[0]!.fields['resource.deployment.environment'], 'QA env');
  });

  it('accepts an empty request and empty lists', () => {
    assert.deepEqual(parseOtlpLogs('{}', ctx()).events, []);
    assert.deepEqual(parseOtlpLogs('', ctx()).events, []);
    assert.deepEqual(parseOtlpLogs('{"resourceLogs":[{"scopeLogs":[{}]}]}', ctx()).events, []);
  });

  it('rejects invalid JSON and wrong shapes', () => {
    const code = (c: string) => (e: unknown) => e instanceof ApiError && e.code === c;
    assert.throws(() => parseOtlpLogs('{', ctx()), code('INVALID_JSON'));
    assert.throws(() => parseOtlpLogs('[]', ctx()), code('INVALID_JSON'));
    assert.throws(() => parseOtlpLogs('{"resourceLogs":{}}', ctx()), code('INVALID_REQUEST'));
    assert.throws(() => parseOtlpLogs('{"resourceLogs":[5]}', ctx()), code('INVALID_REQUEST'));
    assert.throws(() => parseOtlpLogs('{"resourceLogs":[{"scopeLogs":[{"logRecords":[1]}]}]}', ctx()), /logRecords\[0\] must be an object/);
    assert.throws(() => parseOtlpLogs('{"resourceLogs":[{"resource":{"attributes":{}}}]}', ctx()), code('INVALID_REQUEST'));
  });

  it('converts AnyValue and nanoseconds', () => {
    assert.equal(anyValueToJs({ intValue: '-5' }), -5);
    // proto3 JSON writes a double as a number or a string: the non-finite ones keep their exact text.
    for (const text of ['NaN', 'Infinity', '-Infinity']) assert.equal(anyValueToJs({ doubleValue: text }), text);
    assert.equal(anyValueToJs({ doubleValue: '1.5e3' }), 1500);
    assert.equal(anyValueToJs({ doubleValue: 'many' }), undefined);
    assert.deepEqual(anyValueToJs({ kvlistValue: { values: [{ key: '__proto__', value: str('x') }] } }), {});
    assert.equal(nanosToMicros('1500'), 2);
    assert.ok(Number.isNaN(nanosToMicros('0')));
    assert.ok(Number.isNaN(nanosToMicros(-1)));
  });
});
