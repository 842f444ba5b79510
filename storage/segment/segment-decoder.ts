/**
 * Reader-side helpers over an encoded segment: find a column, decode its blocks, or decode whole
 * row blocks into ColumnBatches (tests, compaction). Fetching the buffers is the store's job.
 */
import type { Column, ColumnBatch } from '../core/column';
import type { SegmentStats } from './header';
import { decodeColumnBlock } from './column-decode';
import { decodeColumns } from './row-block';

/** Position of a column in `stats.columns` (and in each `blockData[b]`), or -1. */
export function segmentColumnIndex(stats: SegmentStats, name: string): number {
  const cols = stats.columns;
  for (let i = 0; i < cols.length; i++) if (cols[i].name === name) return i;
  return -1;
}

/** Decodes one column's blocks, in block order. */
export function decodeSegmentColumn(blocks: readonly (Buffer | Uint8Array)[]): Column[] {
  return blocks.map((b) => decodeColumnBlock(b));
}

/**
 * Decodes row blocks into batches holding `names` (default: every stored column). A name the
 * segment does not store decodes to an all-null ConstColumn.
 */
export function decodeSegmentBatches(
  stats: SegmentStats,
  blockData: readonly (readonly (Buffer | Uint8Array)[])[],
  names?: readonly string[],
): ColumnBatch[] {
  const wanted = names ?? stats.columns.map((c) => c.name);
  const indexes = wanted.map((name) => segmentColumnIndex(stats, name));
  const stored = stats.columns.map((c) => c.name);
  return stats.blocks.map((meta, b) => {
    const buffers = indexes.map((c) => (c < 0 ? null : blockData[b][c]));
    const columns = decodeColumns(meta.rows, wanted, buffers, undefined, { names: stored, buffers: blockData[b] });
    return { rowCount: meta.rows, columns };
  });
}
