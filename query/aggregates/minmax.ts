// min / max. Values that read as numbers (numericValue) compare numerically and win over text: the
// result is the smallest/largest number if any was seen, else the lexicographically (code unit order)
// smallest/largest non-numeric string, else null. A `time`-typed argument gives a time (microseconds).

import type { Value } from '../value';
import { badPartial, factory, isRecord, numericValue } from './common';
import type { AggregateFamily, AggregateSite, AggregateState } from './types';

export class MinMaxState implements AggregateState {
  /** The best number so far; NaN until one is seen. */
  num = NaN;
  /** The best non-numeric string so far. */
  str: string | null = null;

  constructor(private readonly max: boolean) {}

  add(value: Value): void {
    if (value === null) return;
    let x = numericValue(value);
    if (x === x) {
      if (x === 0) x = 0; // -0
      if (this.num !== this.num || (this.max ? x > this.num : x < this.num)) this.num = x;
    } else if (typeof value === 'string') {
      if (this.str === null || (this.max ? value > this.str : value < this.str)) this.str = value;
    }
  }

  merge(other: AggregateState): void {
    const o = other as MinMaxState;
    if (o.num === o.num && (this.num !== this.num || (this.max ? o.num > this.num : o.num < this.num))) this.num = o.num;
    if (o.str !== null && (this.str === null || (this.max ? o.str > this.str : o.str < this.str))) this.str = o.str;
  }

  result(): Value {
    return this.num === this.num ? this.num : this.str;
  }

  toJSON(): unknown {
    return { n: this.num === this.num ? this.num : null, s: this.str };
  }
}

function minMaxFactory(max: boolean) {
  return factory(
    (site: AggregateSite) => (site.argType === 'time' || site.argType === 'number' ? site.argType : 'any'),
    () => new MinMaxState(max),
    (site: AggregateSite, json: unknown) => {
      if (!isRecord(json)) throw badPartial(site.name, json);
      const s = new MinMaxState(max);
      const n = json.n;
      const str = json.s;
      if (!(n === null || (typeof n === 'number' && Number.isFinite(n))) || !(str === null || typeof str === 'string')) {
        throw badPartial(site.name, json);
      }
      s.num = n === null ? NaN : n;
      s.str = str;
      return s;
    },
  );
}

export const min = minMaxFactory(false);
export const max = minMaxFactory(true);

export const MIN_MAX_AGGREGATES = {
  min: { min: 1, max: 1, signature: 'min(x)', aliases: ['arg_min'], factory: min },
  max: { min: 1, max: 1, signature: 'max(x)', aliases: ['arg_max'], factory: max },
} satisfies AggregateFamily;
