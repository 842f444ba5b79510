/**
 * Compaction of one segment alone (a full flusher segment whose bucket has closed, compactor.ts):
 * the rows stay where they are, so only `_raw` is written anew, as skeletons with field references
 * (raw-refs.ts) and with its frames' filters. Every other column keeps its stored blocks, whose
 * payloads are only compressed again at the compaction level, and every row block keeps its filter:
 * the tokens of a line are its skeleton's plus its referenced values', so the block's token set
 * does not change. The output is the one encodeSegment would give for the same rows, without
 * decoding each value to JS and encoding it again.
 */
import type { Column } from '../column';
import { columnLength, valueAt } from '../column';
import type { FieldValue } from '../event';
import { RAW_COLUMN, TIME_COLUMN } from '../event';
import { resealBlock } from './block-envelope';
import { decodeColumnBlock } from './column-decode';
import type { BlockMeta, ColumnStats, SegmentHeader } from './header';
import { encodeRawColumn } from './raw-column';
import { RawRefEncoder, type FieldRows } from './raw-refs';
import { withFrameFilters, type EncodeSegmentOptions, type EncodedSegment } from './segment-encoder';

export interface StoredSegment {
  header: SegmentHeader;
  /** `blocks[b][c]`: row block b, column `header.columns[c]`. */
  blocks: readonly (readonly (Uint8Array | null)[])[];
  /** Row block b's stored filter value (null when it has none). */
  blooms: readonly (Uint8Array | null)[];
}

/**
 * True when `segment` can be rewritten by recompressSegment with `options`: row blocks of
 * `blockRows` rows (the last may be shorter), every column stored in every block, a `_raw`
 * without references yet, and `_raw` references asked for.
 */
export function canRecompress(segment: StoredSegment, options: EncodeSegmentOptions): boolean {
  const { header } = segment;
  if (options.rawRefs !== true) return false;
  const raw = header.columns.find((column) => column.name === RAW_COLUMN);
  if (raw === undefined || (raw.refs?.length ?? 0) > 0 || header.columns[0]?.name !== TIME_COLUMN) return false;
  const last = header.blocks.length - 1;
  for (let b = 0; b <= last; b++) {
    const rows = header.blocks[b].rows;
    if (rows !== options.blockRows && !(b === last && rows > 0 && rows < options.blockRows)) return false;
    if (segment.blocks[b]?.length !== header.columns.length || segment.blocks[b].some((block) => block === null)) return false;
    if (header.blocks[b].bloom.bits > 0 && (segment.blooms[b]?.length ?? 0) < header.blocks[b].bloom.bits / 8) return false;
  }
  return true;
}

/** Rewrites `segment` (canRecompress must hold) at `options.compressionLevel` with `_raw` references. */
export function recompressSegment(segment: StoredSegment, options: EncodeSegmentOptions): EncodedSegment {
  const { header } = segment;
  const level = options.compressionLevel;
  const blockSizes = header.blocks.map((block) => block.rows);
  const rawAt = header.columns.findIndex((column) => column.name === RAW_COLUMN);
  const raws = segmentLines(segment, rawAt);

  // Each field's decoded blocks; the encoder samples them, and reads the fields it picks at every row.
  const fieldAt: number[] = [];
  header.columns.forEach((column, c) => {
    if (c !== rawAt && column.name !== TIME_COLUMN) fieldAt.push(c);
  });
  const decoded = fieldAt.map((c) => segment.blocks.map((columns) => decodeColumnBlock(columns[c] as Uint8Array)));
  const sampled = new Map<string, FieldRows>();
  fieldAt.forEach((c, f) => sampled.set(header.columns[c].name, rowReader(decoded[f], options.blockRows)));
  const names = RawRefEncoder.chooseFields(raws, sampled);
  const refs =
    names.length === 0
      ? null
      : RawRefEncoder.of(
          names,
          names.map((name) => denseValues(decoded[fieldAt.findIndex((c) => header.columns[c].name === name)], blockSizes, header.rowCount)),
        );
  const raw = encodeRawColumn({ raws, text: null, order: null }, blockSizes, level, refs, null);

  const blockData = segment.blocks.map((columns, b) =>
    columns.map((block, c) => (c === rawAt ? raw.blockData[b] : resealBlock(block as Uint8Array, level))),
  );
  const columns: ColumnStats[] = header.columns.map((column, c) => {
    if (c === rawAt) return raw.stats;
    let bytes = 0;
    for (const stored of blockData) bytes += stored[c].length;
    return { ...column, bytes };
  });
  const blocks: BlockMeta[] = header.blocks.map(({ rows, minTime, maxTime, bloom }) => ({ rows, minTime, maxTime, bloom }));
  const blockBits = blocks.map((block, b) => Buffer.from((segment.blooms[b] ?? new Uint8Array(0)).subarray(0, block.bloom.bits / 8)));
  const blooms = withFrameFilters(blocks, blockBits, raw);
  let bytes = 0;
  for (const bloom of blooms) bytes += bloom.length;
  for (const column of columns) bytes += column.bytes;
  return {
    stats: { rowCount: header.rowCount, minTime: header.minTime, maxTime: header.maxTime, blocks, columns, bytes, rawBytes: raw.rawBytes },
    blockData,
    blooms,
  };
}

/** Every row's `_raw` as a string (a row without one reads as empty, as a merge reads it). */
function segmentLines(segment: StoredSegment, rawAt: number): string[] {
  const lines = new Array<string>(segment.header.rowCount);
  let row = 0;
  for (let b = 0; b < segment.blocks.length; b++) {
    const column = decodeColumnBlock(segment.blocks[b][rawAt] as Uint8Array);
    const n = segment.header.blocks[b].rows;
    if (columnLength(column) !== n) throw new Error('recompressSegment: a _raw block holds another row count than the header');
    for (let i = 0; i < n; i++) {
      const value = valueAt(column, i);
      lines[row++] = typeof value === 'string' ? value : value === null ? '' : String(value);
    }
  }
  if (row !== lines.length) throw new Error('recompressSegment: the blocks hold another row count than the header');
  return lines;
}

/** A field's value at a segment row, from its decoded blocks of `blockRows` rows. */
function rowReader(blocks: readonly Column[], blockRows: number): FieldRows {
  return (row) => {
    const block = Math.floor(row / blockRows);
    return valueAt(blocks[block], row - block * blockRows);
  };
}

/** A field's values at every segment row, from its decoded blocks of `blockSizes` rows. */
function denseValues(blocks: readonly Column[], blockSizes: readonly number[], rowCount: number): (FieldValue | null)[] {
  const values = new Array<FieldValue | null>(rowCount);
  let row = 0;
  blocks.forEach((column, b) => {
    for (let i = 0; i < blockSizes[b]; i++) values[row++] = valueAt(column, i);
  });
  return values;
}
