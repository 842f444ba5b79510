/**
 * Turns buffered chunks of one partition key, or of one storage group of a piece
 * (segment/segment-keys.ts), into stored-segment data: cuts them at `segment_max_events`, encodes
 * each part and fills in the header's identity and source summary.
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

/** A segment of several partitions of one piece: its storage group and partitions (ascending). */
export interface Grouping {
  group: string;
  partitions: number[];
}

/** Gives an encoded segment its identity: one key, or with `grouping` the partitions of one group (`key` the first). */
export function withIdentity(encoded: CodecResult, key: PartitionKey, options: BuildOptions, grouping?: Grouping): EncodedSegmentData {
  return {
    header: {
      ...encoded.stats,
      version: 3,
      id: options.nextId(),
      index: key.index,
      bucket: key.bucket,
      partition: grouping === undefined ? key.partition : grouping.partitions[0],
      ...(grouping === undefined ? {} : { partitions: grouping.partitions, group: grouping.group }),
      level: options.level,
      createdAt: Date.now(),
      sources: encoded.sources,
    },
    blockData: encoded.blockData,
    blooms: encoded.blooms,
  };
}

/**
 * Encodes buffered chunks (in the codec pool) as one or more segments of at most `segmentMaxEvents`
 * rows: of `key` alone, or with `group` of the partitions of one storage group (each segment
 * lists the partitions its rows came from).
 */
export async function buildSegments(
  pool: CodecPool,
  chunks: readonly EventChunk[],
  key: PartitionKey,
  options: BuildOptions,
  group?: string,
): Promise<EncodedSegmentData[]> {
  return Promise.all(
    groupChunkRows(chunks, options.segmentMaxEvents).map(async (pieces) => {
      const encoded = await pool.encode(pieces, { compressionLevel: options.compressionLevel, blockRows: BLOCK_ROWS });
      if (group === undefined) return withIdentity(encoded, key, options);
      const partitions = [...new Set(pieces.map((piece) => piece.chunk.key.partition))].sort((a, b) => a - b);
      return withIdentity(encoded, key, options, { group, partitions });
    }),
  );
}
