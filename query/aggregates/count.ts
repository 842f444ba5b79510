// count() / count(f) / countif(cond) / rate(): exact counters; partials merge by adding.

import type { Value } from '../value';
import { badPartial, factory } from './common';
import type { AggregateFamily, AggregateSite, AggregateState } from './types';

/** What a counter counts: every row, non-null values, or true conditions. */
const enum Counts {
  ROWS,
  VALUES,
  TRUE,
}

export class CountState implements AggregateState {
  n = 0;

  constructor(
    private readonly name: string,
    private readonly counts: Counts,
    /** rate(): the range in seconds (events per second); null for plain counts. */
    private readonly seconds: number | null,
  ) {}

  add(value: Value): void {
    if (this.counts === Counts.ROWS || (this.counts === Counts.VALUES ? value !== null : value === true)) this.n++;
  }

  addRows(rows: number): void {
    if (this.counts === Counts.ROWS) this.n += rows;
  }

  merge(other: AggregateState): void {
    this.n += (other as CountState).n;
  }

  mergeJSON(json: unknown): void {
    this.n += readCount(this.name, json);
  }

  result(): Value {
    if (this.seconds === null) return this.n;
    return this.seconds > 0 && Number.isFinite(this.seconds) ? this.n / this.seconds : null;
  }

  /** The bare count: a `by` with many groups ships one number per group. */
  toJSON(): unknown {
    return this.n;
  }
}

function readCount(name: string, json: unknown): number {
  if (typeof json !== 'number' || !Number.isInteger(json) || json < 0) throw badPartial(name, json);
  return json;
}

function counter(counts: (site: AggregateSite) => Counts, rate: boolean) {
  // A request without `from` reaches the plan as the epoch: no range to divide by (null), not 56 years.
  const seconds = (site: AggregateSite): number | null =>
    !rate ? null : site.ctx.fromMicros > 0 ? (site.ctx.toMicros - site.ctx.fromMicros) / 1e6 : Infinity;
  const create = (site: AggregateSite): CountState => new CountState(site.name, counts(site), seconds(site));
  return factory(
    () => 'number',
    create,
    (site, json) => {
      const s = create(site);
      s.n = readCount(site.name, json);
      return s;
    },
  );
}

/** count() counts rows; count(f) counts rows where f is not null (site.argCount tells them apart). */
export const count = counter((site) => (site.argCount === 1 ? Counts.VALUES : Counts.ROWS), false);
/** countif(cond): rows whose condition is the boolean true (null and false are not counted). */
export const countif = counter(() => Counts.TRUE, false);
/**
 * rate(): rows per second over the query's time range [from, to): count / ((to - from) / 1e6). An
 * empty or unbounded range (no `from`, which requests pass as the epoch) gives null.
 */
export const rate = counter(() => Counts.ROWS, true);

export const COUNT_AGGREGATES = {
  count: { min: 0, max: 1, signature: 'count() or count(field)', factory: count },
  countif: { min: 1, max: 1, signature: 'countif(condition)', factory: countif },
  rate: { min: 0, max: 0, signature: 'rate()', aliases: ['per_second'], factory: rate },
} satisfies AggregateFamily;
