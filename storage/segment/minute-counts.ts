/**
 * Rows per UTC minute of a segment, kept in its header: a histogram at a whole-minute interval
 * counts a segment's minutes that lie inside the range from here, and decodes `_time` only for
 * the minutes the range cuts (storage/time-counts.ts). A segment spans one bucket, so this is at
 * most a bucket's minutes long (60 at the default 1 h buckets).
 */

export const MINUTE_MICROS = 60_000_000;

/** Segments spanning more minutes than this (a week) keep no minute counts. */
export const MAX_COUNTED_MINUTES = 7 * 24 * 60;

export interface MinuteCounts {
  /** Start of the first minute, microseconds since the epoch (a multiple of MINUTE_MICROS). */
  first: number;
  /** `rows[i]`: rows whose `_time` is in minute `first + i * MINUTE_MICROS`. */
  rows: number[];
}

function minuteOf(micros: number): number {
  return Math.floor(micros / MINUTE_MICROS) * MINUTE_MICROS;
}

/** The counts of `n` times sorted ascending; undefined when they span too many minutes or none. */
export function minuteCountsOf(times: ArrayLike<number>, n: number): MinuteCounts | undefined {
  if (n === 0) return undefined;
  const first = minuteOf(times[0]);
  const span = (minuteOf(times[n - 1]) - first) / MINUTE_MICROS + 1;
  if (!(span <= MAX_COUNTED_MINUTES)) return undefined;
  const rows = new Array<number>(span).fill(0);
  let minute = 0;
  let end = first + MINUTE_MICROS;
  for (let i = 0; i < n; i++) {
    const time = times[i];
    if (time >= end) {
      minute = (minuteOf(time) - first) / MINUTE_MICROS;
      end = first + (minute + 1) * MINUTE_MICROS;
    }
    rows[minute]++;
  }
  return { first, rows };
}

/** The counts of segments merged into one: undefined when any lacks them or they span too long. */
export function mergeMinuteCounts(parts: readonly (MinuteCounts | undefined)[]): MinuteCounts | undefined {
  if (parts.length === 0) return undefined;
  let first = Infinity;
  let last = -Infinity;
  for (const part of parts) {
    if (part === undefined) return undefined;
    first = Math.min(first, part.first);
    last = Math.max(last, part.first + (part.rows.length - 1) * MINUTE_MICROS);
  }
  const span = (last - first) / MINUTE_MICROS + 1;
  if (span > MAX_COUNTED_MINUTES) return undefined;
  const rows = new Array<number>(span).fill(0);
  for (const part of parts as MinuteCounts[]) {
    const offset = (part.first - first) / MINUTE_MICROS;
    for (let i = 0; i < part.rows.length; i++) rows[offset + i] += part.rows[i];
  }
  return { first, rows };
}
