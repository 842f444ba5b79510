/**
 * A partial answer in the user's terms: which nodes' keys could not be read, and which time
 * ranges of which indexes may lack events. A key stands for the events of its index from its
 * bucket value to the end of the placement bucket that value falls in (a key's bucket may be an
 * instant inside a bucket, where the bucket was split): `[bucket, floor(bucket / span) * span + span)`.
 * Each index's ranges are cut to the query's range and merged where they touch or overlap.
 */
import { parseKeyString } from '../storage/core/partition';

/** One index's stretch of time whose events may be missing, microseconds `[fromMicros, toMicros)`. */
export interface MissingSpan {
  index: string;
  fromMicros: number;
  toMicros: number;
}

/** What a partial answer says it lacks (`meta.missing`). */
export interface MissingDetail {
  /** Owners of the missing keys, sorted: the nodes that could not be read. */
  nodes: string[];
  /** By index, then time; ISO instants, `to` exclusive. At most MAX_MISSING_RANGES of them. */
  ranges: { index: string; from: string; to: string }[];
  /** Every range there was; more than `ranges.length` when the list was cut. */
  ranges_total: number;
  /** The list was cut to MAX_MISSING_RANGES. */
  truncated: boolean;
}

/** The most ranges an answer lists: one index over four days of hour buckets with every other hour missing. */
export const MAX_MISSING_RANGES = 50;

/** The merged ranges of the keys, within `[fromMicros, toMicros)`, sorted by index then start. */
export function missingSpans(keys: Iterable<string>, bucketSpanMicros: number, fromMicros: number, toMicros: number): MissingSpan[] {
  const byIndex = new Map<string, [number, number][]>();
  for (const text of keys) {
    const key = parseKeyString(text);
    const start = Math.max(key.bucket, fromMicros);
    const end = Math.min(Math.floor(key.bucket / bucketSpanMicros) * bucketSpanMicros + bucketSpanMicros, toMicros);
    if (!(start < end)) continue;
    let list = byIndex.get(key.index);
    if (list === undefined) byIndex.set(key.index, (list = []));
    list.push([start, end]);
  }
  const spans: MissingSpan[] = [];
  for (const index of [...byIndex.keys()].sort()) {
    const intervals = byIndex.get(index)!.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let current: MissingSpan | null = null;
    for (const [start, end] of intervals) {
      if (current !== null && start <= current.toMicros) {
        current.toMicros = Math.max(current.toMicros, end);
        continue;
      }
      current = { index, fromMicros: start, toMicros: end };
      spans.push(current);
    }
  }
  return spans;
}

/** An instant in microseconds as ISO text, to the millisecond: a start rounds down, an end up, so the text covers the range. */
function isoOf(micros: number, round: (ms: number) => number): string {
  return new Date(round(micros / 1000)).toISOString();
}

/**
 * `meta.missing` for the keys no owner could answer for: the owners of those keys, and their
 * ranges within the query's `[fromMicros, toMicros)`, at most `maxRanges` listed.
 */
export function describeMissing(
  keys: readonly string[],
  owners: (key: string) => readonly string[],
  bucketSpanMicros: number,
  fromMicros: number,
  toMicros: number,
  maxRanges = MAX_MISSING_RANGES,
): MissingDetail {
  const nodes = new Set<string>();
  for (const key of keys) for (const owner of owners(key)) nodes.add(owner);
  const spans = missingSpans(keys, bucketSpanMicros, fromMicros, toMicros);
  return {
    nodes: [...nodes].sort(),
    ranges: spans
      .slice(0, maxRanges)
      .map((span) => ({ index: span.index, from: isoOf(span.fromMicros, Math.floor), to: isoOf(span.toMicros, Math.ceil) })),
    ranges_total: spans.length,
    truncated: spans.length > maxRanges,
  };
}
