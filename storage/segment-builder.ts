/**
 * Turns rows of one partition key into stored-segment data: cuts them at `segment_max_events`,
 * encodes each part and fills in the header's identity and source summary.
 */
import type { CodecPool } from './codec-pool';
import type { PartitionKey } from './partition';
import type { EncodedSegmentData } from './segment-store';
import type { CodecResult } from './codec-worker';
import type { RowSet, SparseColumn } from './segment/row-set';

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
      version: 1,
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

/** Encodes buffered rows (in the codec pool) as one or more segments of at most `segmentMaxEvents` rows. */
export async function buildSegments(
  pool: CodecPool,
  rows: RowSet,
  key: PartitionKey,
  options: BuildOptions,
): Promise<EncodedSegmentData[]> {
  const parts = rows.count <= options.segmentMaxEvents ? [rows] : splitRowSet(rows, options.segmentMaxEvents);
  return Promise.all(
    parts.map(async (part) => {
      const encoded = await pool.encode(part, { compressionLevel: options.compressionLevel, blockRows: BLOCK_ROWS });
      return withIdentity(encoded, key, options);
    }),
  );
}

/** Consecutive row ranges of at most `size` rows (rows are cut in arrival order; each part is sorted on encode). */
export function splitRowSet(rows: RowSet, size: number): RowSet[] {
  const parts: RowSet[] = [];
  for (let start = 0; start < rows.count; start += size) {
    const end = Math.min(rows.count, start + size);
    const fields = new Map<string, SparseColumn>();
    for (const [name, column] of rows.fields) {
      const part: SparseColumn = { rows: [], values: [] };
      for (let i = 0; i < column.rows.length; i++) {
        const row = column.rows[i];
        if (row >= start && row < end) {
          part.rows.push(row - start);
          part.values.push(column.values[i]);
        }
      }
      if (part.rows.length > 0) fields.set(name, part);
    }
    parts.push({ count: end - start, times: rows.times.slice(start, end), raws: rows.raws.slice(start, end), fields });
  }
  return parts;
}
