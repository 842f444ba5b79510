/**
 * Turns buffered chunks of one partition key into stored-segment data: cuts them at `segment_max_events`,
 * encodes each part and fills in the header's identity and source summary.
 */
import type { CodecPool } from '../threads/codec-pool';
import type { PartitionKey } from '../core/partition';
import type { EncodedSegmentData } from './segment-store';
import type { CodecResult } from '../threads/codec-worker';
import { groupChunkRows, type EventChunk } from '../buffer/event-chunk';

/** Rows per row block inside a segment: the unit of decoding and of block-level time pruning. */
export const BLOCK_ROWS = 16384;

export interface BuildOptions {
  compressionLevel: number;
  segmentMaxEvents: number;
  level: number;
  nextId: () => string;
}

/** Gives an encoded segment its identity. */
export function withIdentity(encoded: CodecResult, key: PartitionKey, options: BuildOptions): EncodedSegmentData {
  return {
    header: {
      ...encoded.stats,
      version: 3,
      id: options.nextId(),
      index: key.index,
      bucket: key.bucket,
      partition: key.partition,
      level: options.level,
      createdAt: Date.now(),
      sources: encoded.sources,
    },
    blockData: encoded.blockData,
    blooms: encoded.blooms,
  };
}

/** Encodes buffered chunks (in the codec pool) as one or more segments of at most `segmentMaxEvents` rows. */
export async function buildSegments(
  pool: CodecPool,
  chunks: readonly EventChunk[],
  key: PartitionKey,
  options: BuildOptions,
): Promise<EncodedSegmentData[]> {
  return Promise.all(
    groupChunkRows(chunks, options.segmentMaxEvents).map(async (pieces) => {
      const encoded = await pool.encode(pieces, { compressionLevel: options.compressionLevel, blockRows: BLOCK_ROWS });
      return withIdentity(encoded, key, options);
    }),
  );
}
