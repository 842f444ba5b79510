/**
 * Placement keys. ARCHITECTURE.md: an event's key is `(index, floor(_time / bucket_span), partition)`
 * with the partition from a hash of `host` and `source` modulo `cluster.partitions`. Every node
 * computes the same key, so the cluster router and the local write buffer agree.
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

export function partitionOf(event: LogEvent, partitions: number): number {
  if (partitions <= 1) return 0;
  const host = event.fields.host;
  const source = event.fields.source;
  const text = `${host === undefined ? '' : String(host)}\u0000${source === undefined ? '' : String(source)}`;
  return fnv1a32(text) % partitions;
}

export function bucketOf(timeMicros: number, bucketSpanMicros: number): number {
  return Math.floor(timeMicros / bucketSpanMicros) * bucketSpanMicros;
}

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
