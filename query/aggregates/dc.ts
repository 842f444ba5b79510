// dc(f): distinct non-null values, with the HyperLogLog of hll.ts: exact up to SPARSE_LIMIT (1024)
// distinct values, then within 2% (standard error 0.81%). Values keep their type: 1 and "1" are two
// values (as in values()). Partials merge exactly (the merged sketch equals the one-pass sketch).

import type { Value } from '../value';
import { badPartial, factory } from './common';
import { hashValue, Hll } from './hll';
import type { AggregateFamily, AggregateSite, AggregateState } from './types';

export class DcState implements AggregateState {
  constructor(readonly hll: Hll = new Hll()) {}

  add(value: Value): void {
    if (value === null) return;
    hashValue(value);
    this.hll.addHashed();
  }

  merge(other: AggregateState): void {
    this.hll.merge((other as DcState).hll);
  }

  result(): Value {
    return this.hll.estimate();
  }

  toJSON(): unknown {
    return this.hll.toJSON();
  }
}

export const dc = factory(
  () => 'number',
  () => new DcState(),
  (site: AggregateSite, json: unknown) => {
    const hll = Hll.fromJSON(json);
    if (hll === null) throw badPartial(site.name, json);
    return new DcState(hll);
  },
);

export const DC_AGGREGATES = {
  dc: { min: 1, max: 1, signature: 'dc(field)', aliases: ['dcount', 'distinct_count', 'count_distinct', 'estdc'], factory: dc },
} satisfies AggregateFamily;
