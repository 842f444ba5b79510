/**
 * Placement keys. An event's key is `(index, piece, partition)`: the piece is the start of its time
 * bucket (`floor(_time / bucket_span)`), or, in a bucket that a cluster's ring epoch starts
 * inside, the last such start at or before the event (a split: segments never cross it, and the
 * pieces on either side are placed by their own epochs). The partition comes from a hash of
 * `host` and `source` modulo `cluster.partitions` (the pair's home; a pair that sends many events
 * in one request spills past it, request-placement.ts). The key is decided once, where a request's
 * events are grouped into chunks, and travels with them.
 */
import type { LogEvent } from './event';

export interface PartitionKey {
  index: string;
  /** The start of the key's piece of a bucket in microseconds: the bucket's start, or a split inside it. */
  bucket: number;
  partition: number;
}

export interface Placement {
  bucketSpanMicros: number;
  partitions: number;
  /**
   * Instants (microseconds, ascending) at which a bucket is split: where a cluster's ring epochs
   * start inside a bucket. Absent or empty on a node alone.
   */
  splits?: readonly number[];
}

/** FNV-1a over UTF-16 code units: stable across nodes and versions (it decides data placement). */
export function fnv1a32(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** An event's (host, source) pair as the text its home partition hashes (absent, null and empty alike). */
export function pairText(event: LogEvent): string {
  const host = event.fields.host;
  const source = event.fields.source;
  return `${host === undefined || host === null ? '' : String(host)}\u0000${source === undefined || source === null ? '' : String(source)}`;
}

/** The home partition of a pair, given as pairText gives it. */
export function homePartition(pair: string, partitions: number): number {
  return partitions <= 1 ? 0 : fnv1a32(pair) % partitions;
}

/**
 * An event's home partition. Within one request a pair that sends many events spills past it
 * (request-placement.ts): use that where a request's events are grouped.
 */
export function partitionOf(event: LogEvent, partitions: number): number {
  if (partitions <= 1) return 0;
  return homePartition(pairText(event), partitions);
}

export function bucketOf(timeMicros: number, bucketSpanMicros: number): number {
  return Math.floor(timeMicros / bucketSpanMicros) * bucketSpanMicros;
}

/** The end of the bucket a piece starting at `pieceStart` lies in. */
export function bucketEndOf(pieceStart: number, bucketSpanMicros: number): number {
  return bucketOf(pieceStart, bucketSpanMicros) + bucketSpanMicros;
}

/** Index of the last split at or before `time` (-1 when none): splits are few, a binary search all the same. */
function lastSplitAtOrBefore(splits: readonly number[], time: number): number {
  let low = 0;
  let high = splits.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (splits[middle]! <= time) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/** The start of the piece of its bucket that `timeMicros` falls in. */
export function pieceOf(timeMicros: number, placement: Placement): number {
  const bucket = bucketOf(timeMicros, placement.bucketSpanMicros);
  const splits = placement.splits;
  if (splits === undefined || splits.length === 0) return bucket;
  const at = lastSplitAtOrBefore(splits, timeMicros);
  return at >= 0 && splits[at]! > bucket ? splits[at]! : bucket;
}

/** Where the piece starting at `pieceStart` ends: the next split inside its bucket, or the bucket's end. */
export function pieceEnd(pieceStart: number, placement: Placement): number {
  const end = bucketEndOf(pieceStart, placement.bucketSpanMicros);
  const splits = placement.splits;
  if (splits === undefined || splits.length === 0) return end;
  const next = splits[lastSplitAtOrBefore(splits, pieceStart) + 1];
  return next !== undefined && next < end ? next : end;
}

/** The starts of every piece of the bucket starting at `bucket`, ascending: the bucket's start, then its splits. */
export function piecesOfBucket(bucket: number, placement: Placement): number[] {
  const pieces = [bucket];
  const end = bucket + placement.bucketSpanMicros;
  for (const split of placement.splits ?? []) if (split > bucket && split < end) pieces.push(split);
  return pieces;
}

/** The splits that epochs starting at `starts` make (those not on a bucket boundary), ascending and distinct. */
export function splitsOf(starts: Iterable<number>, bucketSpanMicros: number): number[] {
  const splits = new Set<number>();
  for (const start of starts) if (start % bucketSpanMicros !== 0) splits.add(start);
  return [...splits].sort((a, b) => a - b);
}

/** An event's key in its home partition. */
export function keyOf(event: LogEvent, placement: Placement): PartitionKey {
  return {
    index: event.index,
    bucket: pieceOf(event.time, placement),
    partition: partitionOf(event, placement.partitions),
  };
}

/** A map key for a partition key (index names cannot contain `|`). */
export function keyString(key: PartitionKey): string {
  return `${key.index}|${key.bucket}|${key.partition}`;
}

/** A key as keyString wrote it: `index|bucket|partition` (index names cannot hold `|`). */
export function parseKeyString(text: string): PartitionKey {
  const last = text.lastIndexOf('|');
  const middle = text.lastIndexOf('|', last - 1);
  return { index: text.slice(0, middle), bucket: Number(text.slice(middle + 1, last)), partition: Number(text.slice(last + 1)) };
}
