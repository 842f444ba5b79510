// values(f): the distinct non-null values, sorted, at most VALUES_LIMIT of them (the smallest ones in
// the sort order, so that merging partials in any order gives the same list). Values keep their type,
// so 1 and "1" are two values. Order: numbers (numerically), then strings (code unit order), then
// false, true. The result is the JSON text of the array (the engine's form for arrays); a `time`-typed
// argument lists ISO 8601 strings.

import { formatTime, type Value } from '../value';
import { badPartial, factory, isRecord } from './common';
import type { AggregateFamily, AggregateSite, AggregateState } from './types';

export const VALUES_LIMIT = 100;

function rank(v: string | number | boolean): number {
  return typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2;
}

/** The total order of values(): negative, zero or positive. */
export function compareValues(a: string | number | boolean, b: string | number | boolean): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

export class ValuesState implements AggregateState {
  /** Sorted, distinct, at most VALUES_LIMIT long. */
  readonly items: (string | number | boolean)[] = [];

  constructor(private readonly time: boolean) {}

  add(value: Value): void {
    if (value === null || (typeof value === 'number' && !Number.isFinite(value))) return;
    const items = this.items;
    const n = items.length;
    // Full and not below the largest kept value: the common case for high-cardinality fields.
    if (n === VALUES_LIMIT && compareValues(value, items[n - 1]!) >= 0) return;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = compareValues(items[mid]!, value);
      if (c === 0) return;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    // Shift in place (splice would allocate its result array).
    if (n === VALUES_LIMIT) items.pop();
    items.push(value);
    for (let j = items.length - 1; j > lo; j--) items[j] = items[j - 1]!;
    items[lo] = value;
  }

  merge(other: AggregateState): void {
    const o = (other as ValuesState).items;
    for (let i = 0; i < o.length; i++) this.add(o[i]!);
  }

  result(): Value {
    if (this.items.length === 0) return null;
    return JSON.stringify(this.time ? this.items.map((v) => (typeof v === 'number' ? formatTime(v) : v)) : this.items);
  }

  toJSON(): unknown {
    return { v: this.items.slice() };
  }
}

export const values = factory(
  () => 'string',
  (site: AggregateSite) => new ValuesState(site.argType === 'time'),
  (site: AggregateSite, json: unknown) => {
    if (!isRecord(json) || !Array.isArray(json.v)) throw badPartial(site.name, json);
    const s = new ValuesState(site.argType === 'time');
    for (const v of json.v as unknown[]) {
      if (!(typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))))
        throw badPartial(site.name, json);
      s.add(v);
    }
    return s;
  },
);

export const VALUES_AGGREGATES = {
  values: { min: 1, max: 1, signature: 'values(field)', aliases: ['make_set', 'list'], factory: values },
} satisfies AggregateFamily;
