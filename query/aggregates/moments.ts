// sum / avg / stdev / var over the numbers of the values (numericValue: numbers, numeric strings,
// booleans as 1/0; everything else, null included, is skipped). With no number seen the result is
// null (a group exists only if it has rows, but none of them may hold a number).

import type { Value } from '../value';
import { badPartial, CompensatedSum, encodeNumber, factory, isRecord, numberField, numericValue } from './common';
import type { AggregateFamily, AggregateSite, AggregateState } from './types';

/** sum and avg: a compensated sum and the count of numbers. Merging adds both. */
export class SumState implements AggregateState {
  readonly total = new CompensatedSum();
  n = 0;

  constructor(private readonly average: boolean) {}

  add(value: Value): void {
    const x = numericValue(value);
    if (x !== x) return; // NaN: not a number
    this.total.add(x);
    this.n++;
  }

  merge(other: AggregateState): void {
    const o = other as SumState;
    if (o.n === 0) return;
    this.total.add(o.total.sum);
    this.total.add(o.total.c);
    this.n += o.n;
  }

  result(): Value {
    if (this.n === 0) return null;
    const r = this.average ? this.total.value() / this.n : this.total.value();
    return Number.isFinite(r) ? r : null;
  }

  toJSON(): unknown {
    return { s: encodeNumber(this.total.sum), c: encodeNumber(this.total.c), n: this.n };
  }
}

function sumFactory(average: boolean) {
  return factory(
    () => 'number',
    () => new SumState(average),
    (site: AggregateSite, json: unknown) => {
      if (!isRecord(json)) throw badPartial(site.name, json);
      const s = new SumState(average);
      s.total.sum = numberField(json, 's', site.name);
      s.total.c = numberField(json, 'c', site.name);
      s.n = numberField(json, 'n', site.name);
      return s;
    },
  );
}

/**
 * stdev and var: the sample statistics (divided by n - 1), from (count, mean, M2) kept with Welford's
 * update and merged with Chan et al.'s parallel formula. Fewer than two numbers give null.
 */
export class MomentsState implements AggregateState {
  n = 0;
  mean = 0;
  m2 = 0;

  constructor(private readonly deviation: boolean) {}

  add(value: Value): void {
    const x = numericValue(value);
    if (x !== x) return;
    this.n++;
    const d = x - this.mean;
    this.mean += d / this.n;
    this.m2 += d * (x - this.mean);
  }

  merge(other: AggregateState): void {
    const o = other as MomentsState;
    if (o.n === 0) return;
    if (this.n === 0) {
      this.n = o.n;
      this.mean = o.mean;
      this.m2 = o.m2;
      return;
    }
    const n = this.n + o.n;
    const d = o.mean - this.mean;
    this.mean += (d * o.n) / n;
    this.m2 += o.m2 + (d * d * this.n * o.n) / n;
    this.n = n;
  }

  result(): Value {
    if (this.n < 2) return null;
    const variance = Math.max(0, this.m2 / (this.n - 1));
    const r = this.deviation ? Math.sqrt(variance) : variance;
    return Number.isFinite(r) ? r : null;
  }

  toJSON(): unknown {
    return { n: this.n, mean: encodeNumber(this.mean), m2: encodeNumber(this.m2) };
  }
}

function momentsFactory(deviation: boolean) {
  return factory(
    () => 'number',
    () => new MomentsState(deviation),
    (site: AggregateSite, json: unknown) => {
      if (!isRecord(json)) throw badPartial(site.name, json);
      const s = new MomentsState(deviation);
      s.n = numberField(json, 'n', site.name);
      s.mean = numberField(json, 'mean', site.name);
      s.m2 = numberField(json, 'm2', site.name);
      return s;
    },
  );
}

export const sum = sumFactory(false);
export const avg = sumFactory(true);
export const stdev = momentsFactory(true);
export const variance = momentsFactory(false);

export const MOMENT_AGGREGATES = {
  sum: { min: 1, max: 1, signature: 'sum(x)', factory: sum },
  avg: { min: 1, max: 1, signature: 'avg(x)', aliases: ['mean', 'average'], factory: avg },
  stdev: { min: 1, max: 1, signature: 'stdev(x)', aliases: ['stddev'], factory: stdev },
  var: { min: 1, max: 1, signature: 'var(x)', aliases: ['variance'], factory: variance },
} satisfies AggregateFamily;
