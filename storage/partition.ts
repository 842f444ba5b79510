/**
 * Placement keys. ARCHITECTURE.md: an event's key is `(index, floor(_time / bucket_span), partition)`
 * with the partition from a hash of `host` and `source` modulo `cluster.partitions` (the pair's
 * home; a pair that sends many events in one request spills past it, partition-spill.ts). The
 * key is decided once, where a request's events are grouped into chunks, and travels with them.
 */
import type { LogEvent } from './event';

export interface PartitionKey {
  index: string;
  /** Bucket start in microseconds. */
  bucket: number;
  partition: number;
}

export interface Placement {
  bucketSpanMicros: number;
  partitions: number;
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
 * (partition-spill.ts): use that where a request's events are grouped.
 */
export function partitionOf(event: LogEvent, partitions: number): number {
  if (partitions <= 1) return 0;
  return homePartition(pairText(event), partitions);
}

export function bucketOf(timeMicros: number, bucketSpanMicros: number): number {
  return Math.floor(timeMicros / bucketSpanMicros) * bucketSpanMicros;
}

/** An event's key in its home partition. */
export function keyOf(event: LogEvent, placement: Placement): PartitionKey {
  return {
    index: event.index,
    bucket: bucketOf(event.time, placement.bucketSpanMicros),
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
