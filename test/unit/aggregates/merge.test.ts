import { strict as assert } from 'assert';
import fc from 'fast-check';
import { AGGREGATES_IMPL } from '../../../query/aggregates/index';
import type { AggregateFunctionName } from '../../../query/syntax/ast';
import { AGGREGATE_FUNCTIONS } from '../../../query/syntax/functions';
import type { Value } from '../../../query/value';
import { mergedResult, relErr, result, rng, site } from './helpers';

const NAMES = Object.keys(AGGREGATE_FUNCTIONS) as AggregateFunctionName[];
/** Exact under any split when the numbers are integers (no rounding to reorder). */
const EXACT: AggregateFunctionName[] = [
  'count',
  'countif',
  'rate',
  'sum',
  'min',
  'max',
  'dc',
  'values',
  'first',
  'last',
  'earliest',
  'latest',
];
const FLOAT: AggregateFunctionName[] = ['avg', 'stdev', 'var'];
const SKETCH: AggregateFunctionName[] = ['median', 'p50', 'p75', 'p90', 'p95', 'p99', 'percentile'];

const intValue: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.constantFrom('a', 'b', 'zz', '7', '-3', ''),
);

function siteFor(name: AggregateFunctionName) {
  return site(name, 'any', { parameter: name === 'percentile' ? 37.5 : null, argCount: 1 });
}

function close(a: Value, b: Value, tolerance: number): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
  return a === b;
}

describe('aggregates: partials and merges', () => {
  it('every aggregate is implemented', () => {
    assert.deepEqual(Object.keys(AGGREGATES_IMPL).sort(), [...NAMES].sort());
    assert.deepEqual([...EXACT, ...FLOAT, ...SKETCH].sort(), [...NAMES].sort());
  });

  it('merging random partials (through JSON) equals one state', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        fc.array(intValue, { maxLength: 400 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer(),
        (name, values, k, seed) => {
          const s = siteFor(name);
          // Distinct times, so that first/last do not depend on the order partials merge in.
          const times = values.map((_, i) => (i * 7919) % 100_003);
          const one = result(s, values, times);
          const merged = mergedResult(s, values, times, k, rng(seed));
          if (FLOAT.includes(name)) assert.ok(close(merged, one, 1e-9), `${name}: ${String(merged)} vs ${String(one)}`);
          else assert.deepEqual(merged, one, name);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('large inputs: exact aggregates exact, sketches within their bounds', () => {
    const rand = rng(99);
    const n = 50_000;
    const values: Value[] = Array.from({ length: n }, (_, i) =>
      i % 17 === 0 ? null : i % 5 === 0 ? `s${i % 3000}` : Math.round(Math.exp(rand() * 12)),
    );
    const times = values.map((_, i) => i * 1000 + Math.floor(rand() * 999));
    for (const name of NAMES) {
      const s = siteFor(name);
      const one = result(s, values, times);
      const merged = mergedResult(s, values, times, 8, rand);
      if (SKETCH.includes(name)) assert.ok(relErr(merged as number, one as number) < 0.02, `${name}: ${String(merged)} vs ${String(one)}`);
      else if (FLOAT.includes(name)) assert.ok(close(merged, one, 1e-9), name);
      else assert.deepEqual(merged, one, name);
    }
  });

  it('add and merge never throw for any values', () => {
    const anyValue: fc.Arbitrary<Value> = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.double(),
      fc.string(),
      fc.constantFrom('Infinity', '-1e400', 'NaN'),
    );
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), fc.array(anyValue, { maxLength: 300 }), (name, values) => {
        const s = siteFor(name);
        const times = values.map((_, i) => i);
        const r = mergedResult(s, values, times, 3, rng(values.length));
        assert.ok(r === null || typeof r === 'string' || typeof r === 'boolean' || Number.isFinite(r), `${name}: ${String(r)}`);
      }),
      { numRuns: 1000 },
    );
  });
});
