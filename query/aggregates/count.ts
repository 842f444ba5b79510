// count() / count(f) / countif(cond) / rate(): exact counters; partials merge by adding.

import type { Value } from '../value';
import { badPartial, factory, isRecord, numberField } from './common';
import type { AggregateSite, AggregateState } from './types';

/** What a counter counts: every row, non-null values, or true conditions. */
const enum Counts { ROWS, VALUES, TRUE }

export class CountState implements AggregateState {
  n = 0;

  constructor(
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

  result(): Value {
    if (this.seconds === null) return this.n;
    return this.seconds > 0 && Number.isFinite(this.seconds) ? this.n / this.seconds : null;
  }

  toJSON(): unknown {
    return { n: this.n };
  }
}

function readCount(name: string, json: unknown): number {
  if (!isRecord(json)) throw badPartial(name, json);
  const n = numberField(json, 'n', name);
  if (!Number.isInteger(n) || n < 0) throw badPartial(name, json);
  return n;
}

function counter(counts: (site: AggregateSite) => Counts, rate: boolean) {
  const seconds = (site: AggregateSite): number | null => (rate ? (site.ctx.toMicros - site.ctx.fromMicros) / 1e6 : null);
  const create = (site: AggregateSite): CountState => new CountState(counts(site), seconds(site));
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
 * empty or unbounded range gives null.
 */
export const rate = counter(() => Counts.ROWS, true);
