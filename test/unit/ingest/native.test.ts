import { strict as assert } from 'assert';
import { ApiError } from '../../../node/core/errors';
import { parseNativeBatch } from '../../../node/ingest/native';
import fc from 'fast-check';
import { flattenInto } from '../../../node/ingest/flatten';
import type { FieldValue } from '../../../storage/core/event';
import { assertValidEvent, ctx, NOW } from './helpers';

const isInvalidJson = (e: unknown): boolean => e instanceof ApiError && e.code === 'INVALID_JSON' && e.status === 400;

describe('ingest native batch', () => {
  it('maps every element key', () => {
    const body = JSON.stringify([
      {
        event: '2003-10-11T22:14:15Z ERROR not extracted',
        time: 1700000000.123456,
        source: 'app',
        sourcetype: 'json',
        host: 'h1',
        index: 'prod',
        fields: { n: 1.5, b: false, s: 'x', nested: { a: { b: 2 } }, arr: [1, { c: 2 }], nul: null },
      },
    ]);
    const r = parseNativeBatch(body, ctx());
    assert.equal(r.failed, 0);
    assert.deepEqual(r.errors, []);
    const ev = r.events[0]!;
    assertValidEvent(ev);
    assert.equal(ev.raw, '2003-10-11T22:14:15Z ERROR not extracted');
    assert.equal(ev.time, 1700000000_123456);
    assert.equal(ev.index, 'prod');
    assert.deepEqual(ev.fields, {
      source: 'app',
      sourcetype: 'json',
      host: 'h1',
      n: 1.5,
      b: false,
      s: 'x',
      'nested.a.b': 2,
      arr: '[1,{"c":2}]',
    });
  });

  it('defaults: receive time, index main, no labels, no pipeline', () => {
    const r = parseNativeBatch('[{"event":"ERROR x"},{"event":"y","time":null,"index":null,"source":""}]', ctx());
    assert.deepEqual(
      r.events.map((ev) => ev.raw),
      ['ERROR x', 'y'],
    );
    for (const ev of r.events) {
      assert.equal(ev.time, NOW);
      assert.equal(ev.index, 'main');
      assert.deepEqual(ev.fields, {});
    }
  });

  it('accepts fractional and integer seconds, 1970 to 2200', () => {
    const r = parseNativeBatch('[{"event":"a","time":0},{"event":"b","time":1.5},{"event":"c","time":7258118399}]', ctx());
    assert.deepEqual(
      r.events.map((e) => e.time),
      [0, 1_500000, 7258118399_000000],
    );
  });

  it('top-level labels win over fields; an empty or reserved name inside fields refuses the event, naming it', () => {
    const r = parseNativeBatch('[{"event":"a","host":"top","fields":{"host":"inner","source":"f","level":"WARN"}}]', ctx());
    assert.deepEqual(r.events[0]!.fields, { host: 'top', source: 'f', level: 'WARN' });
    for (const name of ['_time', '_raw', 'index', '_source', '_sourcetype', '_timestamp', '__proto__']) {
      const refused = parseNativeBatch(`[{"event":"a","fields":{"ok":1,${JSON.stringify(name)}:"x"}}]`, ctx());
      assert.deepEqual([refused.events.length, refused.failed], [0, 1], name);
      assert.match(refused.errors[0]!.reason, new RegExp(`field '${name}' uses a reserved name`), name);
    }
    const empty = parseNativeBatch('[{"event":"a","fields":{"a":{"":1}}}]', ctx());
    assert.match(empty.errors[0]!.reason, /a field name is empty \(under 'a\.'\)/);
  });

  it('label values inside fields are stored as strings', () => {
    const r = parseNativeBatch('[{"event":"a","fields":{"host":5,"level":true}}]', ctx());
    assert.deepEqual(r.events[0]!.fields, { host: '5', level: 'true' });
  });

  it('counts failed elements and accepts the rest', () => {
    const body = JSON.stringify([
      'not an object',
      {},
      { event: 5 },
      { event: 'ok' },
      { event: 'x', time: '1700000000' },
      { event: 'x', time: -1 },
      { event: 'x', time: 1e12 },
      { event: 'x', index: 'Bad Index' },
      { event: 'x', index: 3 },
      { event: 'x', host: 3 },
      { event: 'x', fields: [1] },
      { event: 'x', fields: 'a=1' },
      [],
      null,
    ]);
    const r = parseNativeBatch(body, ctx());
    assert.equal(r.events.length, 1);
    assert.equal(r.failed, 13);
    assert.deepEqual(
      r.errors.map((e) => e.item),
      [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
    );
    assert.match(r.errors[1]!.reason, /'event' is required/);
    assert.match(r.errors[3]!.reason, /'time' must be a number/);
    assert.match(r.errors[4]!.reason, /out of range/);
    assert.match(r.errors[6]!.reason, /invalid index name/);
  });

  it('caps the error list at 100 but counts every failure', () => {
    const r = parseNativeBatch(JSON.stringify(Array.from({ length: 150 }, () => ({}))), ctx());
    assert.equal(r.failed, 150);
    assert.equal(r.errors.length, 100);
  });

  it('rejects bodies that are not a JSON array with INVALID_JSON', () => {
    for (const body of [
      '{"event":"x"}',
      '{"event":"x"}\n{"event":"y"}',
      'plain text',
      '',
      '   ',
      '"x"',
      '5',
      '[1',
      '[1,]',
      '[{"event":"x"}] [1]',
    ]) {
      assert.throws(() => parseNativeBatch(body, ctx()), isInvalidJson, body);
    }
  });

  it('explains the rejection', () => {
    assert.throws(() => parseNativeBatch('{"event":"x"}', ctx()), /JSON array/);
    assert.throws(() => parseNativeBatch('[{"event":}]', ctx()), /invalid JSON: /);
  });

  it('accepts surrounding whitespace and an empty array', () => {
    assert.deepEqual(parseNativeBatch(' \n[]\n ', ctx()), { events: [], failed: 0, errors: [], refused: {} });
  });

  it('refuses an element with a number float64 cannot hold, naming the field, and accepts the rest', () => {
    const r = parseNativeBatch(
      '[{"event":"x","fields":{"big":1e999,"ok":1}},{"event":"y","fields":{"n":{"deep":-1e400}}},{"event":"z","fields":{"ok":1}}]',
      ctx(),
    );
    assert.deepEqual(
      r.events.map((ev) => ev.raw),
      ['z'],
    );
    assert.equal(r.failed, 2);
    assert.deepEqual(
      r.errors.map((e) => [e.item, e.code]),
      [
        [0, 'non_finite_number'],
        [1, 'non_finite_number'],
      ],
    );
    assert.match(r.errors[0]!.reason, /field 'big' holds a number outside the 64-bit floating-point range/);
    assert.match(r.errors[1]!.reason, /field 'n\.deep'/);
    assert.deepEqual(r.refused, { non_finite_number: 2 });
  });

  it('keeps flat fields as they are and flattens the rest, exactly as flattenInto does (random objects)', () => {
    // Keys that hit every rule: reserved names, the empty name, nesting, arrays, nulls, 1e999.
    const key = fc.oneof(
      fc.constantFrom('a', 'b.c', '', '_raw', '_time', 'index', '__proto__', 'source', 'host', 'x'),
      fc.string({ maxLength: 6 }),
    );
    const scalar = fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean());
    const value = fc.oneof(
      { weight: 6, arbitrary: scalar },
      fc.constant(null),
      fc.dictionary(key, scalar, { maxKeys: 3 }),
      fc.array(scalar, { maxLength: 2 }),
    );
    fc.assert(
      fc.property(fc.array(fc.dictionary(key, value, { maxKeys: 8 }), { minLength: 1, maxLength: 5 }), fc.boolean(), (objects, withBig) => {
        const texts = objects.map((fields) => {
          // 1e999 only exists in JSON text: it parses to Infinity.
          const members = [...(withBig ? ['"big-number":1e999'] : []), JSON.stringify(fields).slice(1, -1)].filter(
            (member) => member !== '',
          );
          return `{"event":"e","fields":{${members.join(',')}}}`;
        });
        const result = parseNativeBatch(`[${texts.join(',')}]`, ctx());
        // 1e999 has no float64 value: every element is refused rather than stored without it. An
        // empty or reserved name (with a value) anywhere in fields refuses its element.
        const refusedNames = objects.map((fields) => flattenInto({}, fields, { keepExisting: false, refuseReserved: true }) !== null);
        if (refusedNames.some((refused) => refused) || withBig) {
          assert.equal(result.failed, withBig ? texts.length : refusedNames.filter((refused) => refused).length);
          assert.equal(result.events.length, texts.length - result.failed);
          return;
        }
        assert.equal(result.failed, 0);
        texts.forEach((text, i) => {
          const expected: Record<string, FieldValue> = {};
          flattenInto(expected, JSON.parse(text).fields, { keepExisting: false });
          for (const name of ['source', 'sourcetype', 'host', 'level'])
            if (typeof expected[name] !== 'string' && name in expected) expected[name] = String(expected[name]);
          assert.deepEqual({ ...result.events[i].fields }, expected);
          assert.deepEqual(Object.keys(result.events[i].fields), Object.keys(expected));
        });
      }),
      { numRuns: 500 },
    );
  });
});
