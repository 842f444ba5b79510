// median, p50, p75, p90, p95, p99, percentile(f, q) over the numbers of the values (numericValue).
//
// Definition: the value at 0-based rank floor(q * (n - 1)) of the sorted numbers (the "lower" nearest
// rank, as DDSketch answers): p50 of 1, 2, 3, 4 is 2. median is p50.
// A state keeps the numbers themselves while there are at most EXACT_LIMIT of them (exact answers and
// small memory for small groups), then moves to a DDSketch (@datadog/sketches-js, logarithmic mapping,
// relative accuracy 0.005: the answer is within 0.5% of the value at that rank; docs/language.md asks 1%),
// clamped to the exact min and max. Partials merge: numbers while the total stays small, else sketches
// (DDSketch merges are exact on its buckets, so the bound holds after any number of merges).

import { DDSketch } from '@datadog/sketches-js';
import type { Value } from '../value';
import { badPartial, encodeNumber, factory, isRecord, numberField, numericValue } from './common';
import type { AggregateFactory, AggregateFamily, AggregateSite, AggregateState } from './types';

export const RELATIVE_ACCURACY = 0.005;
export const EXACT_LIMIT = 128;

type Store = DDSketch['store'];

/** Merges b into a. The library's merge (2.1.1) forgets the negative values' store; this does not. */
function mergeSketch(a: DDSketch, b: DDSketch): void {
  if (b.count === 0) return;
  if (a.count === 0) {
    a._copy(b);
    return;
  }
  a.store.merge(b.store);
  a.negativeStore.merge(b.negativeStore);
  a.zeroCount += b.zeroCount;
  a.count += b.count;
  a.sum += b.sum;
  if (b.min < a.min) a.min = b.min;
  if (b.max > a.max) a.max = b.max;
}

/** A store's buckets as [first key, count, count, ...] (empty when the store is). */
function storeToJSON(store: Store): number[] {
  if (store.count === 0) return [];
  const from = store.minKey - store.offset;
  const to = store.maxKey - store.offset;
  const out = [store.minKey];
  for (let i = from; i <= to; i++) out.push(store.bins[i] ?? 0);
  return out;
}

function storeFromJSON(store: Store, json: unknown): number | null {
  if (!Array.isArray(json) || (json.length > 0 && !Number.isSafeInteger(json[0]))) return null;
  let total = 0;
  let first = 0;
  let last = 0;
  for (let i = 1; i < json.length; i++) {
    const c: unknown = json[i];
    if (typeof c !== 'number' || !(c >= 0) || !Number.isFinite(c)) return null;
    if (c > 0) {
      if (first === 0) first = i;
      last = i;
    }
    total += c;
  }
  if (first === 0) return total;
  const base = (json[0] as number) - 1;
  const bins = json as number[];
  // The store moves its bins each time a key past its range arrives: the two ends go first, so it
  // grows twice rather than once per chunk of keys (a sketch of 800 bins read 10x faster).
  store.add(base + first, bins[first]!);
  if (last !== first) store.add(base + last, bins[last]!);
  for (let i = first + 1; i < last; i++) if (bins[i]! > 0) store.add(base + i, bins[i]!);
  return total;
}

export class PercentileState implements AggregateState {
  /** The numbers while exact (null before the first and after moving to the sketch). */
  buf: Float64Array | null = null;
  n = 0;
  sketch: DDSketch | null = null;

  constructor(readonly q: number) {}

  add(value: Value): void {
    const x = numericValue(value);
    if (x !== x) return;
    if (this.sketch !== null) {
      this.sketch.accept(x);
      return;
    }
    let buf = this.buf;
    if (buf === null) buf = this.buf = new Float64Array(8);
    else if (this.n === buf.length) {
      if (this.n >= EXACT_LIMIT) {
        this.toSketch().accept(x);
        return;
      }
      const bigger = new Float64Array(buf.length * 2);
      bigger.set(buf);
      buf = this.buf = bigger;
    }
    buf[this.n++] = x;
  }

  private toSketch(): DDSketch {
    const sketch = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
    for (let i = 0; i < this.n; i++) sketch.accept(this.buf![i]!);
    this.sketch = sketch;
    this.buf = null;
    this.n = 0;
    return sketch;
  }

  merge(other: AggregateState): void {
    const o = other as PercentileState;
    if (o.sketch !== null) mergeSketch(this.sketch ?? this.toSketch(), o.sketch);
    else for (let i = 0; i < o.n; i++) this.add(o.buf![i]!);
  }

  result(): Value {
    const sketch = this.sketch;
    if (sketch !== null) {
      // The extreme ranks are the exact min and max; others are clamped into [min, max].
      const rank = this.q * (sketch.count - 1);
      if (rank < 1) return sketch.min;
      if (rank >= sketch.count - 1) return sketch.max;
      const v = sketch.getValueAtQuantile(this.q);
      return Math.min(sketch.max, Math.max(sketch.min, v));
    }
    if (this.n === 0) return null;
    const sorted = this.buf!.slice(0, this.n).sort();
    return sorted[Math.floor(this.q * (this.n - 1))]!;
  }

  toJSON(): unknown {
    const s = this.sketch;
    if (s === null) return { e: this.buf === null ? [] : Array.from(this.buf.subarray(0, this.n)) };
    return { p: storeToJSON(s.store), m: storeToJSON(s.negativeStore), z: s.zeroCount, min: s.min, max: s.max, sum: encodeNumber(s.sum) };
  }

  static fromJSON(site: AggregateSite, q: number, json: unknown): PercentileState {
    if (!isRecord(json)) throw badPartial(site.name, json);
    const state = new PercentileState(q);
    if (Array.isArray(json.e)) {
      for (const x of json.e as unknown[]) {
        if (typeof x !== 'number' || !Number.isFinite(x)) throw badPartial(site.name, json);
        state.add(x);
      }
      return state;
    }
    const sketch = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });
    const positive = storeFromJSON(sketch.store, json.p);
    const negative = storeFromJSON(sketch.negativeStore, json.m);
    const { z, min, max } = json;
    const sum = numberField(json, 'sum', site.name);
    if (
      positive === null ||
      negative === null ||
      typeof z !== 'number' ||
      !(z >= 0) ||
      typeof min !== 'number' ||
      typeof max !== 'number' ||
      !Number.isFinite(min) ||
      !Number.isFinite(max)
    ) {
      throw badPartial(site.name, json);
    }
    sketch.zeroCount = z;
    sketch.count = positive + negative + z;
    sketch.min = min;
    sketch.max = max;
    sketch.sum = sum;
    state.sketch = sketch;
    return state;
  }
}

/** The quantile (0-1] of a site: fixed by the name, or percentile's q / 100. */
export function quantileOf(site: AggregateSite): number {
  switch (site.name) {
    case 'median':
    case 'p50':
      return 0.5;
    case 'p75':
      return 0.75;
    case 'p90':
      return 0.9;
    case 'p95':
      return 0.95;
    case 'p99':
      return 0.99;
    default: {
      const q = site.parameter;
      if (q === null || !(q > 0 && q <= 100)) throw new Error(`${site.name}() needs 0 < q <= 100, got ${String(q)}`);
      return q / 100;
    }
  }
}

export const percentile: AggregateFactory = factory(
  () => 'number',
  (site) => new PercentileState(quantileOf(site)),
  (site, json) => PercentileState.fromJSON(site, quantileOf(site), json),
);

export const PERCENTILE_AGGREGATES = {
  median: { min: 1, max: 1, signature: 'median(x)', factory: percentile },
  p50: { min: 1, max: 1, signature: 'p50(x)', factory: percentile },
  p75: { min: 1, max: 1, signature: 'p75(x)', factory: percentile },
  p90: { min: 1, max: 1, signature: 'p90(x)', factory: percentile },
  p95: { min: 1, max: 1, signature: 'p95(x)', factory: percentile },
  p99: { min: 1, max: 1, signature: 'p99(x)', factory: percentile },
  percentile: { min: 2, max: 2, signature: 'percentile(x, q)', aliases: ['percentiles', 'perc'], factory: percentile },
} satisfies AggregateFamily;
