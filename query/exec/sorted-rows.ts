/**
 * `sort ... | head N` as a bounded top-N: the first N rows in the sort order, kept without holding
 * every row. Each shard keeps its own first N and the coordinator merges the lists, which gives
 * the same rows as sorting everything: a row outside a shard's first N has N rows before it there.
 *
 * The order is the sort keys (rows.ts compareSortKeys), then the default order, newest first:
 * the order a stable sort of the newest-first rows gives, as `sort` without a bound does.
 */
import type { Value } from '../value';
import { compareSortKeys, rowBytes, type Row } from './rows';

// The sort key type is part of the plan (plan/operators.ts).
export type { SortKey } from '../plan/operators';

/** A row with its sort key values and its time. */
export interface KeyedRow {
  time: number;
  keys: Value[];
  row: Row;
}

/** Orders keyed rows by their key values (with `directions`), then newest first. */
export function compareKeyed(
  directions: readonly ('asc' | 'desc')[],
  a: { time: number; keys: Value[] },
  b: { time: number; keys: Value[] },
): number {
  return compareSortKeys(directions, a.keys, b.keys) || b.time - a.time;
}

/** The first `capacity` rows in the sort order among those pushed (Infinity: all of them). */
export class SortedRows {
  private rows: KeyedRow[] = [];
  /** Approximate bytes of the rows held (rows.ts rowBytes), for the query's memory budget. */
  bytes = 0;
  /** Once full: the last kept row; a candidate that does not come before it cannot enter. */
  private last: KeyedRow | null = null;

  constructor(
    readonly directions: readonly ('asc' | 'desc')[],
    readonly capacity: number,
  ) {}

  get size(): number {
    return this.rows.length;
  }

  /** Whether a row with these keys and time would be kept now (cheap: no row is built for one that would not). */
  accepts(keys: Value[], time: number): boolean {
    return this.capacity > 0 && (this.last === null || compareKeyed(this.directions, { time, keys }, this.last) < 0);
  }

  push(row: KeyedRow): void {
    if (this.capacity === 0) return;
    this.rows.push(row);
    this.bytes += rowBytes(row.row);
    // Sorting a list twice the capacity every `capacity` pushes keeps the work O(log N) a row.
    if (this.rows.length >= this.capacity * 2) this.trim();
  }

  private trim(): void {
    this.rows.sort((a, b) => compareKeyed(this.directions, a, b));
    if (this.rows.length >= this.capacity) {
      this.rows.length = this.capacity;
      this.last = this.rows[this.capacity - 1];
      this.bytes = 0;
      for (const kept of this.rows) this.bytes += rowBytes(kept.row);
    }
  }

  /** The kept rows, in order. */
  sorted(): KeyedRow[] {
    this.trim();
    return this.rows;
  }
}

/** Merges per-shard lists into the first `capacity` rows overall. */
export function mergeSorted(directions: readonly ('asc' | 'desc')[], lists: readonly KeyedRow[][], capacity: number): KeyedRow[] {
  const all = lists.flat();
  all.sort((a, b) => compareKeyed(directions, a, b));
  if (all.length > capacity) all.length = capacity;
  return all;
}
