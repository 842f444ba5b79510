// first / last / earliest / latest: the value of the row with the smallest / largest `_time` among the
// rows where the value is not null. earliest is first and latest is last (as in SPL, where they differ
// only by the order rows arrive in; here rows are ordered by time, so they are the same).
// Ties on `_time`: first and earliest keep the first row seen, last and latest the last row seen; a
// merge treats the other partial as seen after this one. Values keep their type; a `time`-typed
// argument gives a time.

import type { Value } from '../value';
import { badPartial, factory, isRecord, valueField } from './common';
import type { AggregateFamily, AggregateSite, AggregateState } from './types';

export class FirstLastState implements AggregateState {
  value: Value = null;
  time = 0;
  seen = false;

  constructor(private readonly last: boolean) {}

  add(value: Value, time: number): void {
    // NaN and infinities are not values (arithmetic gives null); they could not travel as JSON.
    if (value === null || (typeof value === 'number' && !Number.isFinite(value))) return;
    if (!this.seen || (this.last ? time >= this.time : time < this.time)) {
      this.value = value;
      this.time = time;
      this.seen = true;
    }
  }

  merge(other: AggregateState): void {
    const o = other as FirstLastState;
    if (o.seen) this.add(o.value, o.time);
  }

  result(): Value {
    return this.value;
  }

  toJSON(): unknown {
    return this.seen ? { v: this.value, t: this.time } : {};
  }
}

function firstLastFactory(last: boolean) {
  return factory(
    (site: AggregateSite) => site.argType,
    () => new FirstLastState(last),
    (site: AggregateSite, json: unknown) => {
      if (!isRecord(json)) throw badPartial(site.name, json);
      const s = new FirstLastState(last);
      if ('v' in json) {
        const v = valueField(json, 'v', site.name);
        const t = json.t;
        if (v === null || typeof t !== 'number' || !Number.isFinite(t)) throw badPartial(site.name, json);
        s.add(v, t);
      }
      return s;
    },
  );
}

export const first = firstLastFactory(false);
export const last = firstLastFactory(true);
export const earliest = first;
export const latest = last;

export const FIRST_LAST_AGGREGATES = {
  first: { min: 1, max: 1, signature: 'first(field)', aliases: ['take_any', 'any'], factory: first },
  last: { min: 1, max: 1, signature: 'last(field)', factory: last },
  earliest: { min: 1, max: 1, signature: 'earliest(field)', factory: earliest },
  latest: { min: 1, max: 1, signature: 'latest(field)', factory: latest },
} satisfies AggregateFamily;
