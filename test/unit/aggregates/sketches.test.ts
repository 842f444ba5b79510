import { strict as assert } from 'assert';
import fc from 'fast-check';
import { AGGREGATES_IMPL, SPARSE_LIMIT } from '../../../query/aggregates/index';
import { EXACT_LIMIT } from '../../../query/aggregates/percentile';
import type { Value } from '../../../query/value';
import { normal, relErr, result, rng, run, site, viaJson } from './helpers';

/** The value at the rank the percentile aggregates define: floor(q * (n - 1)) of the sorted numbers. */
function exactQuantile(sorted: readonly number[], q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))]!;
}

describe('aggregates: dc (HyperLogLog)', () => {
  it('exact while small; types kept apart; nulls ignored', () => {
    assert.equal(result(site('dc'), []), 0);
    assert.equal(result(site('dc'), [null]), 0);
    assert.equal(result(site('dc'), ['a', 'a', 'b', 1, '1', true, 'true', 0, -0, null]), 7, 'a b 1 "1" true "true" 0');
    const values = Array.from({ length: SPARSE_LIMIT }, (_, i) => `v${i}`);
    assert.equal(result(site('dc'), [...values, ...values]), SPARSE_LIMIT);
  });

  for (const n of [1_000, 100_000, 1_000_000]) {
    it(`relative error under 2% at ${n} distinct values (also merged from 4 partials)`, () => {
      const s = site('dc');
      const whole = AGGREGATES_IMPL.dc.create(s);
      const parts = [0, 1, 2, 3].map(() => AGGREGATES_IMPL.dc.create(s));
      const rand = rng(n);
      for (let i = 0; i < n; i++) {
        const v: Value = i % 3 === 0 ? i : `user-${i}@example.com`;
        whole.add(v, 0);
        parts[Math.floor(rand() * 4)]!.add(v, 0);
        if (i % 5 === 0) whole.add(v, 0); // repeats do not count
      }
      const estimate = whole.result() as number;
      assert.ok(relErr(estimate, n) < 0.02, `dc = ${estimate} for ${n}`);
      const merged = AGGREGATES_IMPL.dc.create(s);
      for (const p of parts) merged.merge(viaJson(s, p));
      assert.equal(merged.result(), estimate, 'merging gives the one-pass sketch');
      assert.equal(viaJson(s, whole).result(), estimate);
      assert.deepEqual(viaJson(s, whole).toJSON(), whole.toJSON());
    });
  }

  it('error stays under 2% over many sizes and seeds', () => {
    const s = site('dc');
    let worst = 0;
    for (const n of [1500, 3000, 7000, 15_000, 40_000]) {
      for (let seed = 0; seed < 4; seed++) {
        const state = AGGREGATES_IMPL.dc.create(s);
        for (let i = 0; i < n; i++) state.add(`${seed}:${i}`, 0);
        worst = Math.max(worst, relErr(state.result() as number, n));
      }
    }
    assert.ok(worst < 0.02, `worst ${worst}`);
  });
});

describe('aggregates: percentiles (DDSketch)', () => {
  it('exact while small, with the lower nearest rank', () => {
    assert.equal(result(site('median'), [4, 1, 3, 2]), 2);
    assert.equal(result(site('p50'), [5, 1, 3]), 3);
    assert.equal(result(site('p99'), [1, 2, 3]), 2);
    assert.equal(result(site('p75'), ['10', 20, null, 'x', 30, 40]), 30);
    assert.equal(result(site('percentile', 'any', { parameter: 100 }), [3, 9, 1]), 9);
    assert.equal(result(site('percentile', 'any', { parameter: 0.1 }), [3, 9, 1]), 1);
    assert.equal(result(site('p90'), []), null);
    assert.equal(result(site('p90'), [null, 'x']), null);
    assert.equal(result(site('p95'), [-5, -1, -3]), -3, 'rank floor(0.95 * 2) = 1');
    assert.equal(AGGREGATES_IMPL.p99.resultType(site('p99')), 'number');
    assert.throws(() => AGGREGATES_IMPL.percentile.create(site('percentile', 'any', { parameter: null })));
  });

  it('relative error under 1% on lognormal data (100k values), also merged from 5 partials', () => {
    const rand = rng(42);
    const xs = Array.from({ length: 100_000 }, () => Math.exp(3 + 1.5 * normal(rand)));
    const sorted = [...xs].sort((a, b) => a - b);
    const quantiles: Array<[Parameters<typeof site>[0], number | null, number]> = [
      ['median', null, 0.5],
      ['p50', null, 0.5],
      ['p75', null, 0.75],
      ['p90', null, 0.9],
      ['p95', null, 0.95],
      ['p99', null, 0.99],
      ['percentile', 99.9, 0.999],
      ['percentile', 1, 0.01],
      ['percentile', 100, 1],
    ];
    for (const [name, parameter, q] of quantiles) {
      const s = site(name, 'number', { parameter });
      const expected = exactQuantile(sorted, q);
      const one = run(s, xs).result() as number;
      assert.ok(relErr(one, expected) < 0.01, `${name} ${parameter}: ${one} vs ${expected}`);
      const parts = [0, 1, 2, 3, 4].map(() => AGGREGATES_IMPL[name].create(s));
      xs.forEach((x, i) => parts[(i * 7) % 5]!.add(x, 0));
      const merged = AGGREGATES_IMPL[name].create(s);
      for (const p of parts) merged.merge(viaJson(s, p));
      const m = viaJson(s, merged).result() as number;
      assert.ok(relErr(m, expected) < 0.01, `merged ${name}: ${m} vs ${expected}`);
    }
  });

  it('negative, zero and positive values, through merges', () => {
    const rand = rng(7);
    const xs = Array.from({ length: 20_000 }, (_, i) => (i % 10 === 0 ? 0 : (rand() < 0.4 ? -1 : 1) * Math.exp(normal(rand) * 2)));
    const sorted = [...xs].sort((a, b) => a - b);
    for (const q of [1, 10, 25, 40, 45, 50, 75, 99]) {
      const s = site('percentile', 'number', { parameter: q });
      const parts = [0, 1, 2].map(() => AGGREGATES_IMPL.percentile.create(s));
      xs.forEach((x, i) => parts[i % 3]!.add(x, 0));
      const merged = viaJson(s, parts[0]!);
      merged.merge(viaJson(s, parts[1]!));
      merged.merge(parts[2]!);
      const expected = exactQuantile(sorted, q / 100);
      const got = merged.result() as number;
      if (expected === 0) assert.equal(got, 0, `p${q}`);
      else assert.ok(relErr(got, expected) < 0.01, `p${q}: ${got} vs ${expected}`);
    }
  });

  it('a sketch read back from its JSON holds the same bins and answers alike (property)', () => {
    const number = fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: -5000, max: 5000 }), fc.constant(0));
    fc.assert(
      fc.property(
        fc.array(number, { minLength: EXACT_LIMIT + 1, maxLength: 3000 }),
        fc.constantFrom('p50', 'p99', 'median'),
        (xs, name) => {
          const s = site(name);
          const state = run(s, xs);
          const back = viaJson(s, state);
          assert.deepEqual(back.toJSON(), state.toJSON());
          assert.equal(back.result(), state.result());
          // A read-back state keeps taking numbers as the original does.
          for (const x of [-1e7, 0, 1e7, 3.5]) {
            state.add(x, 0);
            back.add(x, 0);
          }
          assert.deepEqual(back.toJSON(), state.toJSON());
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the exact buffer moves to the sketch past EXACT_LIMIT, min and max stay exact', () => {
    const s = site('p99');
    const xs = Array.from({ length: EXACT_LIMIT + 1 }, (_, i) => i + 1);
    const state = run(s, xs);
    const back = viaJson(s, state);
    assert.deepEqual(back.toJSON(), state.toJSON());
    assert.ok(relErr(back.result() as number, 128) < 0.01);
    assert.equal(result(site('percentile', 'any', { parameter: 100 }), xs), EXACT_LIMIT + 1, 'clamped to the max');
    assert.equal(result(site('percentile', 'any', { parameter: 0.001 }), xs), 1, 'clamped to the min');
    const same = new Array(1000).fill(250);
    assert.equal(result(site('median'), same), 250, 'one value repeated is exact');
  });
});
