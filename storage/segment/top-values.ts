/**
 * The most frequent values of a column with their counts (strings and integers), for
 * `GET /fields`'s `top_values` without reading blocks. Exact while the column has at most
 * MAX_EXACT_VALUES distinct values and every block was counted (dictionary string blocks and
 * narrow-range integer blocks are; plain string blocks, wide-range integers and mixed blocks are
 * not). Past that the counts are a bounded heavy-hitters summary: the map is cut back to its
 * PRUNED_SIZE largest whenever it passes MAX_TRACKED, and a segment keeps KEPT_INEXACT of them.
 */
import type { FieldValue } from '../core/event';

export type TopValue = string | number;
export type TopEntry = [TopValue, number];

export const MAX_EXACT_VALUES = 256;
const MAX_TRACKED = 1024;
const PRUNED_SIZE = 128;
/** How many values an inexact summary keeps in a header. */
export const KEPT_INEXACT = 32;

/** By count, most first; ties by value (numbers before strings), so the order depends only on the counts. */
export function byCount(a: TopEntry, b: TopEntry): number {
  if (a[1] !== b[1]) return b[1] - a[1];
  const x = a[0];
  const y = b[0];
  if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

export class TopCounts {
  private readonly counts = new Map<TopValue, number>();
  private exact = true;

  /** Values of a block the summary could not count: what it reports is no longer exact. */
  missed(): void {
    this.exact = false;
  }

  add(value: TopValue, count: number): void {
    this.counts.set(value, (this.counts.get(value) ?? 0) + count);
    if (this.counts.size > MAX_EXACT_VALUES) this.exact = false;
    if (this.counts.size > MAX_TRACKED) this.prune(PRUNED_SIZE);
  }

  addEntries(entries: readonly TopEntry[], exact: boolean): void {
    if (!exact) this.exact = false;
    for (const [value, count] of entries) this.add(value, count);
  }

  /** A value as it is stored, or null for what top values do not count (booleans, fractions). */
  static countable(value: FieldValue | null | undefined): TopValue | null {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isSafeInteger(value) && !Object.is(value, -0)) return value;
    return null;
  }

  private prune(size: number): void {
    const kept = [...this.counts].sort(byCount).slice(0, size);
    this.counts.clear();
    for (const [value, count] of kept) this.counts.set(value, count);
  }

  /** Every value when exact, else the KEPT_INEXACT largest; most frequent first. */
  finish(): { top: TopEntry[]; exact: boolean } {
    const sorted = [...this.counts].sort(byCount);
    return this.exact ? { top: sorted, exact: true } : { top: sorted.slice(0, KEPT_INEXACT), exact: false };
  }
}
