/**
 * The partition keys and ring epochs a time range touches. Since a hot pair spills over
 * partitions (storage/core/request-placement.ts), a query cannot tell which partitions hold an index's
 * events: it asks every key in range.
 */
import { piecesOfBucket, type PartitionKey } from '../../storage/core/partition';

function checkPlacement(bucketSpanMicros: number, partitions?: number): void {
  if (!(bucketSpanMicros > 0) || !Number.isInteger(bucketSpanMicros))
    throw new Error(`a bucket span is a whole number of microseconds from 1: ${bucketSpanMicros}`);
  if (partitions !== undefined && (!Number.isInteger(partitions) || partitions < 1))
    throw new Error(`partitions are a whole number from 1: ${partitions}`);
}

/**
 * Keys a range may have at most: a caller that forgot to clamp an unbounded range gets an error,
 * not a process out of memory (an hour's buckets of 16 partitions since 1970 would be 7.7 million).
 */
export const MAX_RANGE_KEYS = 4_000_000;

function checkCount(count: number, what: string): void {
  if (count > MAX_RANGE_KEYS)
    throw new RangeError(`a time range of ${count} ${what} is more than ${MAX_RANGE_KEYS}: clamp it to where data can be`);
}

/** The buckets a non-empty `[fromMicros, toMicros)` overlaps: the first one's start and how many. */
export function bucketCover(fromMicros: number, toMicros: number, bucketSpanMicros: number): { first: number; count: number } {
  const first = Math.floor(fromMicros / bucketSpanMicros) * bucketSpanMicros;
  return { first, count: Math.ceil((toMicros - first) / bucketSpanMicros) };
}

/** The starts of the buckets that overlap `[fromMicros, toMicros)`, ascending (none when the range is empty). */
export function bucketsInRange(fromMicros: number, toMicros: number, bucketSpanMicros: number): number[] {
  checkPlacement(bucketSpanMicros);
  if (!(fromMicros < toMicros)) return [];
  const { first, count } = bucketCover(fromMicros, toMicros, bucketSpanMicros);
  checkCount(count, 'buckets');
  return Array.from({ length: count }, (_, i) => first + i * bucketSpanMicros);
}

/**
 * Every key of the indexes whose bucket overlaps `[fromMicros, toMicros)`: by bucket ascending
 * (so the keys of one ring epoch come together), every piece of each bucket (its start and the
 * `splits` inside it: an event placed before a split was decided may lie past it), then index in
 * the order given, then partition. There are indexes x pieces x partitions of them,
 * so clamp the range to where data can be first (retention's cutoff, the newest time accepted);
 * more than MAX_RANGE_KEYS throws a RangeError.
 */
export function keysInRange(
  indexes: readonly string[],
  fromMicros: number,
  toMicros: number,
  bucketSpanMicros: number,
  partitions: number,
  splits: readonly number[] = [],
): PartitionKey[] {
  checkPlacement(bucketSpanMicros, partitions);
  const buckets = bucketsInRange(fromMicros, toMicros, bucketSpanMicros);
  const distinct = new Set(indexes);
  checkCount(distinct.size * buckets.length * partitions, 'partition keys');
  const keys: PartitionKey[] = [];
  for (const bucket of buckets) {
    for (const piece of piecesOfBucket(bucket, { bucketSpanMicros, partitions, splits })) {
      for (const index of distinct) {
        for (let partition = 0; partition < partitions; partition++) keys.push({ index, bucket: piece, partition });
      }
    }
  }
  return keys;
}
