/**
 * Segment header: everything the planner needs to prune a segment without reading its blocks.
 *
 * A segment holds the rows of one key `(index, time bucket, partition)`, sorted by `_time`,
 * cut into row blocks of at most `blockRows` rows. Each (block, column) pair is one zstd block
 * stored under its own key, so a query decodes only the columns and blocks it needs; each row
 * block has its own token bloom filter, so a rare token prunes blocks, not only segments.
 */

import { RAW_COLUMN } from '../core/event';
import type { MinuteCounts } from './minute-counts';
import type { TopEntry } from './top-values';
import type { SketchJSON } from './value-sketch';

/** Per-column statistics over the whole segment. */
export interface ColumnStats {
  name: string;
  /** Non-null rows by value type (`integer` counts the integral numbers, which are also in `number`). */
  counts: { string: number; number: number; integer: number; boolean: number };
  nullCount: number;
  /** Smallest and largest numeric value (null when the column holds no number). */
  min: number | null;
  max: number | null;
  /** Smallest and largest string value in code-unit order (null when no string). */
  minString: string | null;
  maxString: string | null;
  /** Every distinct string value when there are at most `MAX_HEADER_DICT` of them, sorted; else null. */
  dict: string[] | null;
  /** Compressed bytes of this column over all blocks. */
  bytes: number;
  /**
   * `_raw` only: the fields its blocks reference (raw-refs.ts), which a read of `_raw` must read
   * too. Absent or empty: `_raw` is stored whole.
   */
  refs?: string[];
  /** Quantile sketch of the numeric values (value-sketch.ts); absent with no number, and in headers written before it was kept. */
  sketch?: SketchJSON;
  /** Sum of the numeric values; absent as `sketch` is, and when the sum overflows. */
  sum?: number;
  /** Most frequent string and integer values with their counts, most first (top-values.ts). */
  top?: TopEntry[];
  /** Whether `top` holds every value with its exact count. */
  topExact?: boolean;
}

export interface BlockMeta {
  rows: number;
  minTime: number;
  maxTime: number;
  /** The block's token bloom filter (its bits are stored under the block's bloom key). */
  bloom: BloomMeta;
  /**
   * When `_raw` is framed (framed-block.ts, version 2): each frame's rows and the bloom filter of
   * its `_raw` tokens, stored after the block's filter under the same key, in frame order.
   */
  frames?: FrameMeta[];
}

export interface FrameMeta {
  rows: number;
  /** The frame's `_raw` tokens; with `refs`, only those of its skeletons (raw-refs.ts). */
  bloom: BloomMeta;
  /**
   * When the frame's `_raw` holds field references: the tokens of the referenced values, stored
   * after every frame's `bloom` bits, in frame order. A token this filter rules out can only be
   * in a row's skeleton.
   */
  refs?: BloomMeta;
}

export interface BloomMeta {
  /** Filter size in bits (a multiple of 8). 0 means no filter (no tokens). */
  bits: number;
  hashes: number;
  /** Distinct tokens added. */
  tokens: number;
}

/** What the encoder computes from the rows. */
export interface SegmentStats {
  rowCount: number;
  minTime: number;
  maxTime: number;
  blocks: BlockMeta[];
  /** In stored order; `blockData[b][c]` is the block of `columns[c]` in row block `b`. Always starts with `_time`, `_raw`. */
  columns: ColumnStats[];
  /** Total compressed bytes: all column blocks plus the blocks' bloom filters. */
  bytes: number;
  /** Sum of the UTF-8 lengths of `_raw`: the ingested size the catalog reports. */
  rawBytes: number;
  /** Rows per UTC minute (minute-counts.ts); absent when the rows span too long, and then a histogram reads `_time`. */
  minuteCounts?: MinuteCounts;
}

/** A stored segment's header: the stats plus its identity. */
export interface SegmentHeader extends SegmentStats {
  /**
   * 1: whole `_raw` blocks; 2: `_raw` may be framed, with frame filters; 3: `_raw` may hold field
   * references, listed in its ColumnStats `refs` (all are read).
   */
  version: 1 | 2 | 3;
  id: string;
  index: string;
  /** Bucket start, microseconds since the epoch. */
  bucket: number;
  /** The segment's partition; with `partitions`, the first of them. */
  partition: number;
  /**
   * Present when the segment holds several partitions of one piece (a cluster node stores the
   * partitions of a piece that have the same owners together: segment-keys.ts): all of them,
   * ascending. A row does not record its partition, so a read takes all of them or none.
   */
  partitions?: number[];
  /** The storage group of those partitions (their owners, as the node named them when it flushed). */
  group?: string;
  /** 0 for a segment written by the flusher; compaction output is 1 + the highest input level. */
  level: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Per-source summary of the rows, for the source and field catalog. */
  sources: SourceStats[];
}

/** Rows of one `source` value in a segment (rows without a source count under the empty name). */
export interface SourceStats {
  name: string;
  rows: number;
  rawBytes: number;
  minTime: number;
  maxTime: number;
  /** Field names seen in this source's rows (capped at MAX_SOURCE_FIELDS). */
  fields: string[];
}

export const MAX_SOURCE_FIELDS = 1000;

export const MAX_HEADER_DICT = 256;

/**
 * `names` plus the fields a `_raw` with field references is rebuilt from, when `names` holds
 * `_raw` (the header's `_raw` ColumnStats `refs`): what a read of those columns must fetch.
 */
export function withRawRefs(stats: Pick<SegmentStats, 'columns'>, names: readonly string[]): string[] {
  const out = [...names];
  if (!names.includes(RAW_COLUMN)) return out;
  for (const field of stats.columns.find((column) => column.name === RAW_COLUMN)?.refs ?? []) if (!out.includes(field)) out.push(field);
  return out;
}
