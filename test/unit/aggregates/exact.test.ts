import { strict as assert } from 'assert';
import { AGGREGATES_IMPL, VALUES_LIMIT } from '../../../query/aggregates/index';
import { CTX, result, run, site, viaJson } from './helpers';

const MIXED = [1, '2', null, 'x', true, 4.5, '', ' 3 ', false, 'Infinity'];

describe('aggregates: exact', () => {
  it('count() counts rows, count(f) non-null values, countif true conditions', () => {
    assert.equal(result(site('count'), [null, null, null]), 3, 'count(): values are always null');
    assert.equal(result(site('count', 'any', { argCount: 0 }), [null, 1]), 2);
    assert.equal(result(site('count', 'any', { argCount: 1 }), [null, 1, '', false, null]), 3);
    assert.equal(result(site('countif', 'boolean'), [true, false, null, true, 1, 'true']), 2);
    assert.equal(result(site('count'), []), 0);
    assert.equal(AGGREGATES_IMPL.count.resultType(site('count')), 'number');
  });

  it('rate(): rows per second over the query range', () => {
    assert.equal(result(site('rate'), new Array(500).fill(null)), 500 / 10_000);
    const empty = { ...CTX, fromMicros: 5, toMicros: 5 };
    assert.equal(result(site('rate', 'any', { ctx: empty }), [null]), null, 'an empty range');
    const open = { ...CTX, fromMicros: -Infinity, toMicros: 5 };
    assert.equal(result(site('rate', 'any', { ctx: open }), [null]), null, 'an unbounded range');
    const noFrom = { ...CTX, fromMicros: 0, toMicros: Date.UTC(2026, 0, 1) * 1000 };
    assert.equal(result(site('rate', 'any', { ctx: noFrom }), [null]), null, 'a request without from (the epoch)');
  });

  it('sum / avg over numbers, numeric strings and booleans; null without numbers', () => {
    // Independently: 1 + 2 + 1 (true) + 4.5 + 3 + 0 (false) = 11.5 over 6 numbers.
    assert.equal(result(site('sum'), MIXED), 11.5);
    assert.equal(result(site('avg'), MIXED), 11.5 / 6);
    assert.equal(result(site('sum'), []), null);
    assert.equal(result(site('sum'), [null, 'x', '']), null);
    assert.equal(result(site('avg'), [null]), null);
    assert.equal(result(site('sum'), [0]), 0);
    const tenths = new Array(10).fill(0.1);
    assert.equal(result(site('sum'), tenths), 1, 'compensated: ten 0.1 make exactly 1');
    assert.equal(result(site('sum'), [1e16, 1, -1e16]), 1);
    assert.equal(result(site('sum'), [Number.MAX_VALUE, Number.MAX_VALUE]), null, 'overflow');
  });

  it('stdev / var: sample statistics; fewer than two numbers give null', () => {
    const xs = [2, 4, 4, 4, 5, 5, 7, 9];
    const mean = xs.reduce((a, b) => a + b) / xs.length;
    const v = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1);
    assert.equal(result(site('var'), xs), v);
    assert.ok(Math.abs((result(site('stdev'), [...xs, null, 'x']) as number) - Math.sqrt(v)) < 1e-12);
    assert.equal(result(site('var'), [5]), null);
    assert.equal(result(site('stdev'), []), null);
    assert.equal(result(site('var'), [3, 3, 3]), 0);
    // Welford stays accurate far from zero, where the naive formula cancels.
    const big = [1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16];
    assert.equal(result(site('var'), big), 30);
  });

  it('min / max: numbers first, then strings; times stay times', () => {
    assert.equal(result(site('min'), MIXED), 0, 'false is 0');
    assert.equal(result(site('max'), MIXED), 4.5);
    assert.equal(result(site('min'), [10, '9', '100']), 9);
    assert.equal(result(site('max'), ['b', 'abc', null, 'B']), 'b');
    assert.equal(result(site('min'), ['b', 'abc', null, 'B']), 'B');
    assert.equal(result(site('min'), ['b', 7]), 7, 'a number wins over text');
    assert.equal(result(site('max'), []), null);
    assert.equal(result(site('max'), [null]), null);
    assert.equal(result(site('min'), [-0]), 0);
    assert.equal(AGGREGATES_IMPL.min.resultType(site('min', 'time')), 'time');
    assert.equal(result(site('max', 'time'), [1_700_000_000_000_000, 1_600_000_000_000_000]), 1_700_000_000_000_000);
  });

  it('first / last / earliest / latest: by _time, ties first seen / last seen, nulls skipped', () => {
    const values = ['b', 'a', null, 'c', 'd', 'e'];
    const times = [20, 10, 5, 30, 30, 10];
    assert.equal(result(site('first'), values, times), 'a', 'time 10, seen before "e"');
    assert.equal(result(site('earliest'), values, times), 'a');
    assert.equal(result(site('last'), values, times), 'd', 'time 30, seen after "c"');
    assert.equal(result(site('latest'), values, times), 'd');
    assert.equal(result(site('first'), [null, null], [1, 2]), null);
    assert.equal(result(site('last'), [1, true], [2, 1]), 1, 'values keep their type');
    assert.equal(AGGREGATES_IMPL.first.resultType(site('first', 'time')), 'time');
    assert.equal(AGGREGATES_IMPL.last.resultType(site('last', 'string')), 'string');
    // Merging: the other partial counts as seen later.
    const a = run(site('last'), ['x'], [7]);
    a.merge(run(site('last'), ['y'], [7]));
    assert.equal(a.result(), 'y');
    const f = run(site('first'), ['x'], [7]);
    f.merge(run(site('first'), ['y'], [7]));
    assert.equal(f.result(), 'x');
  });

  it('values: distinct, sorted numbers < strings < booleans, as JSON text', () => {
    assert.equal(result(site('values'), ['b', 2, 'a', 10, '10', true, false, 2, 'a', null]), '[2,10,"10","a","b",false,true]');
    assert.equal(result(site('values'), []), null);
    assert.equal(result(site('values', 'time'), [86_400e6, 0, 0]), '["1970-01-01T00:00:00.000Z","1970-01-02T00:00:00.000Z"]');
    const many = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
    const expected = Array.from({ length: VALUES_LIMIT }, (_, i) => i);
    assert.equal(result(site('values'), many), JSON.stringify(expected), 'the smallest 100');
    assert.equal(AGGREGATES_IMPL.values.resultType(site('values')), 'string');
  });

  it('toJSON / fromJSON round-trip exactly', () => {
    const cases: Array<[ReturnType<typeof site>, unknown[]]> = [
      [site('count'), [null, null]],
      [site('count', 'any', { argCount: 1 }), [1, null, 2]],
      [site('countif'), [true, false]],
      [site('rate'), [null]],
      [site('sum'), [0.1, 0.2, 0.3, 'x']],
      [site('avg'), [1, 2, 4]],
      [site('var'), [1.5, 2.25, 9]],
      [site('stdev'), [1.5, 2.25, 9]],
      [site('min'), ['b', 'a']],
      [site('max'), [3, 'z']],
      [site('first'), ['x', 'y']],
      [site('last'), [false, true]],
      [site('values'), ['a', 1, true]],
      [site('first'), []],
      [site('min'), []],
    ];
    for (const [s, values] of cases) {
      const state = run(s, values as never[]);
      const back = viaJson(s, state);
      assert.deepEqual(back.result(), state.result(), s.name);
      assert.deepEqual(back.toJSON(), state.toJSON(), s.name);
    }
  });

  it('fromJSON refuses malformed partials', () => {
    const bad: Array<[ReturnType<typeof site>, unknown]> = [
      [site('count'), { n: -1 }],
      [site('count'), null],
      [site('sum'), { s: 'x', c: 0, n: 1 }],
      [site('var'), {}],
      [site('min'), { n: 'a', s: null }],
      [site('first'), { v: {}, t: 1 }],
      [site('values'), { v: [{}] }],
      [site('dc'), { s: [1] }],
      [site('dc'), { d: 'AAAA' }],
      [site('p99'), { p: ['x'], m: [], z: 0, min: 0, max: 0, sum: 0 }],
      [site('p99'), { e: ['1'] }],
      [site('p99'), { p: ['x', 1], m: [], z: 0, min: 0, max: 0, sum: 0 }],
    ];
    for (const [s, json] of bad)
      assert.throws(() => AGGREGATES_IMPL[s.name].fromJSON(s, json), /invalid partial state/, `${s.name} ${JSON.stringify(json)}`);
  });
});
