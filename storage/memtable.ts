/**
 * The write buffer's in-memory side for one partition key: the acknowledged chunks not yet in
 * segments, readable at once. Chunks are immutable, so a reader that takes the first n chunks has
 * a stable snapshot, and a chunk's decoded columns are kept for the next query instead of being
 * decoded again (queries over recent data read the same chunks over and over).
 */
import type { Column, ColumnBatch } from './column';
import { chunkColumn } from './chunk-read';
import { INDEX_COLUMN, RAW_COLUMN, TIME_COLUMN } from './event';
import type { EventChunk } from './event-chunk';
import type { PartitionKey } from './partition';

export class MemTable {
  count = 0;
  minTime = Number.POSITIVE_INFINITY;
  maxTime = Number.NEGATIVE_INFINITY;
  /** UTF-8 bytes of the buffered `_raw` text (memory accounting). */
  rawBytes = 0;
  readonly chunks: EventChunk[] = [];
  private readonly decoded: Map<string, Column>[] = [];

  constructor(readonly key: PartitionKey) {}

  add(chunk: EventChunk): void {
    if (chunk.count === 0) return;
    this.chunks.push(chunk);
    this.decoded.push(new Map());
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

  /** One column of chunk `index` (decoded once, then shared by every reader). */
  column(index: number, name: string): Column {
    const cache = this.decoded[index];
    let column = cache.get(name);
    if (column === undefined) {
      column = chunkColumn(this.chunks[index], name);
      cache.set(name, column);
    }
    return column;
  }

  /** Chunk `index` as a column batch with the requested columns (null = all). */
  readChunk(index: number, columns: readonly string[] | null): ColumnBatch {
    const chunk = this.chunks[index];
    const names = columns ?? [TIME_COLUMN, RAW_COLUMN, INDEX_COLUMN, ...chunk.fields.map((field) => field.name)];
    const out = new Map<string, Column>();
    for (const name of names) out.set(name, this.column(index, name));
    return { rowCount: chunk.count, columns: out };
  }
}
