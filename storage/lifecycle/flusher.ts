/**
 * The flusher: seals the active write-buffer generation and turns it into level-0 segments, one
 * or more per partition key, committing the segments and the deletion of the generation's
 * write-buffer records in one atomic RocksDB batch.
 */
import type { CodecPool } from '../threads/codec-pool';
import { flushZstdLevel } from './compactor';
import type { Rocks, WriteOp } from '../core/rocks';
import { buildSegments } from './segment-builder';
import type { SegmentStore } from './segment-store';
import type { SegmentHeader } from '../segment/header';
import { walDeleteOps, type Generation, type WriteBuffer } from '../buffer/write-buffer';

export interface FlushResult {
  events: number;
  segments: SegmentHeader[];
  durationMs: number;
}

export interface FlushOptions {
  /** `storage.compression_level`; segments are written at flushZstdLevel() of it. */
  compressionLevel: number;
  segmentMaxEvents: number;
  sync: boolean;
}

/** Writes one sealed generation. On failure it stays sealed (and readable) and the next flush retries it. */
export async function flushGeneration(
  pool: CodecPool,
  generation: Generation,
  buffer: WriteBuffer,
  store: SegmentStore,
  rocks: Rocks,
  options: FlushOptions,
): Promise<FlushResult> {
  const started = performance.now();
  const ops: WriteOp[] = [];
  const headers: SegmentHeader[] = [];
  const built = await Promise.all(
    [...generation.tables.values()].map((table) =>
      buildSegments(pool, table.chunks, table.key, {
        compressionLevel: flushZstdLevel(options.compressionLevel),
        segmentMaxEvents: options.segmentMaxEvents,
        level: 0,
        nextId: () => store.nextId(),
      }),
    ),
  );
  for (const segment of built.flat()) {
    ops.push(...store.putOps(segment));
    headers.push(segment.header);
  }
  ops.push(...walDeleteOps(generation));
  await rocks.write(ops, options.sync);
  // Same tick: readers see either the sealed generation or its segments, never both.
  store.apply(headers, []);
  buffer.release(generation);
  return { events: generation.events, segments: headers, durationMs: performance.now() - started };
}
