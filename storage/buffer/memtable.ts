/**
 * The write buffer's in-memory side for one partition key: the acknowledged chunks not yet in
 * segments, readable at once. Chunks are immutable, so a reader that takes the first n chunks has
 * a stable snapshot. Queries decode them in their worker threads (chunk-read.ts).
 */
import type { EventChunk } from './event-chunk';
import type { PartitionKey } from '../core/partition';

export class MemTable {
  count = 0;
  minTime = Number.POSITIVE_INFINITY;
  maxTime = Number.NEGATIVE_INFINITY;
  /** UTF-8 bytes of the buffered `_raw` text (memory accounting). */
  rawBytes = 0;
  readonly chunks: EventChunk[] = [];

  constructor(readonly key: PartitionKey) {}

  add(chunk: EventChunk): void {
    if (chunk.count === 0) return;
    this.chunks.push(chunk);
    this.count += chunk.count;
    this.rawBytes += chunk.raws.bytes.byteLength;
    if (chunk.minTime < this.minTime) this.minTime = chunk.minTime;
    if (chunk.maxTime > this.maxTime) this.maxTime = chunk.maxTime;
  }

  fieldNames(): string[] {
    const names = new Set<string>();
    for (const chunk of this.chunks) for (const field of chunk.fields) names.add(field.name);
    return [...names];
  }
}
