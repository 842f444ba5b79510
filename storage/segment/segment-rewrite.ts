/**
 * Compaction that keeps its inputs' columns: when the rows of the inputs follow one another in
 * time (a lone flusher segment whose bucket has closed, or flusher segments that do not overlap),
 * the output's rows are the inputs' rows in order, so its row blocks can be theirs. Only `_raw` is
 * written anew, as skeletons with field references (raw-refs.ts) and with its frames' filters.
 * Every other column keeps its stored blocks, whose payloads are only compressed again at the
 * compaction level, and every row block keeps its filter: the tokens of a line are its skeleton's
 * plus its referenced values', so a block's token set does not change.
 *
 * A lone input comes out byte for byte as encodeSegment would write it. Several inputs keep their
 * row blocks, so each input's last block stays short inside the output (canRewrite bounds how
 * many); a full re-encode would cut the rows into even blocks.
 */
import type { Column } from '../core/column';
import { columnLength, valueAt } from '../core/column';
import type { FieldValue } from '../core/event';
import { RAW_COLUMN, TIME_COLUMN } from '../core/event';
import { resealBlock } from './block-envelope';
import { encodeColumnBlock } from './column-encode';
import { decodeColumnBlock } from './column-decode';
import { ColumnStatsBuilder } from './column-stats-builder';
import { MAX_SOURCE_FIELDS, type BlockMeta, type ColumnStats, type SegmentHeader, type SourceStats } from './header';
import { encodeRawColumn } from './raw-column';
import { RawRefEncoder, type FieldRows } from './raw-refs';
import { mergeMinuteCounts } from './minute-counts';
import { withFrameFilters, type EncodeSegmentOptions, type EncodedSegment } from './segment-encoder';

/** The least average fill, in blocks, of the row blocks a merge keeps (see canRewrite). */
export const MIN_KEPT_FILL = 0.75;

export interface StoredSegment {
  header: SegmentHeader;
  /** `blocks[b][c]`: row block b, column `header.columns[c]`. */
  blocks: readonly (readonly (Uint8Array | null)[])[];
  /** Row block b's stored filter value (null when it has none). */
  blooms: readonly (Uint8Array | null)[];
}

/**
 * True when rewriteSegments can compact `segments` (in the order given) with `options`: `_raw`
 * references asked for; each input with `_time` first, a `_raw` without references yet, every
 * column stored in every block, its filters read; each input's rows no earlier than the previous
 * input's; row blocks of at most `blockRows` rows, holding at least MIN_KEPT_FILL of that on
 * average (each input but the last ends on a short block, so many small inputs are re-encoded
 * into even blocks instead).
 */
export function canRewrite(segments: readonly StoredSegment[], options: EncodeSegmentOptions): boolean {
  if (options.rawRefs !== true || segments.length === 0) return false;
  let rows = 0;
  let blockCount = 0;
  for (let s = 0; s < segments.length; s++) {
    const { header, blocks, blooms } = segments[s];
    if (s > 0 && header.minTime < segments[s - 1].header.maxTime) return false;
    const raw = header.columns.find((column) => column.name === RAW_COLUMN);
    if (raw === undefined || (raw.refs?.length ?? 0) > 0 || header.columns[0]?.name !== TIME_COLUMN) return false;
    if (blocks.length !== header.blocks.length) return false;
    for (let b = 0; b < header.blocks.length; b++) {
      const meta = header.blocks[b];
      if (meta.rows > options.blockRows || meta.rows < 1) return false;
      rows += meta.rows;
      blockCount++;
      if (blocks[b].length !== header.columns.length || blocks[b].some((block) => block === null)) return false;
      if (meta.bloom.bits > 0 && (blooms[b]?.length ?? 0) < meta.bloom.bits / 8) return false;
    }
  }
  // A lone input keeps its blocks whatever their size: its rows are not cut again either way.
  return segments.length === 1 || rows >= blockCount * options.blockRows * MIN_KEPT_FILL;
}

/** Compacts `segments` (canRewrite must hold) into one at `options.compressionLevel`, with `_raw` references. */
export function rewriteSegments(
  segments: readonly StoredSegment[],
  options: EncodeSegmentOptions,
): EncodedSegment & { sources: SourceStats[] } {
  const level = options.compressionLevel;
  // The output's row blocks: every input's, in order.
  const parts = segments.flatMap((segment, s) => segment.header.blocks.map((_, b) => ({ s, b })));
  const blockSizes = parts.map(({ s, b }) => segments[s].header.blocks[b].rows);
  const rowCount = blockSizes.reduce((sum, rows) => sum + rows, 0);
  const positions = segments.map(({ header }) => new Map(header.columns.map((column, c) => [column.name, c])));
  /** Part p's stored block of column `name`, or null when its segment lacks the column. */
  const storedBlock = (p: number, name: string): Uint8Array | null => {
    const { s, b } = parts[p];
    const c = positions[s].get(name);
    return c === undefined ? null : (segments[s].blocks[b][c] as Uint8Array);
  };

  const raws = partLines(
    parts.map((_, p) => storedBlock(p, RAW_COLUMN) as Uint8Array),
    blockSizes,
    rowCount,
  );
  // The fields, by name as encodeSegment orders them; the encoder samples them and reads the ones it picks at every row.
  const fieldNames = [...new Set(segments.flatMap(({ header }) => header.columns.map((column) => column.name)))]
    .filter((name) => name !== TIME_COLUMN && name !== RAW_COLUMN)
    .sort();
  const decoded = fieldNames.map((name) => parts.map((_, p) => decodeOrNull(storedBlock(p, name), blockSizes[p])));
  const starts = blockStarts(blockSizes);
  const sampled = new Map<string, FieldRows>(fieldNames.map((name, f) => [name, rowReader(decoded[f], starts)]));
  const chosen = RawRefEncoder.chooseFields(raws, sampled);
  const refs =
    chosen.length === 0
      ? null
      : RawRefEncoder.of(
          chosen,
          chosen.map((name) => denseValues(decoded[fieldNames.indexOf(name)], blockSizes, rowCount)),
        );
  const raw = encodeRawColumn({ raws, text: null, order: null }, blockSizes, level, refs, null);

  // `_time`, `_raw`, then the fields: each block kept (recompressed), or all null where an input lacks the field.
  const blockData: Buffer[][] = parts.map(() => []);
  const columns: ColumnStats[] = [];
  for (const name of [TIME_COLUMN, RAW_COLUMN, ...fieldNames]) {
    if (name === RAW_COLUMN) {
      raw.blockData.forEach((data, p) => blockData[p].push(data));
      columns.push(raw.stats);
      continue;
    }
    const stats = new ColumnStatsBuilder(name);
    segments.forEach(({ header }, input) => {
      const c = positions[input].get(name);
      if (c === undefined) stats.addNulls(header.rowCount);
      else stats.addColumn(header.columns[c]);
    });
    parts.forEach((_, p) => {
      const stored = storedBlock(p, name);
      const data =
        stored === null
          ? encodeColumnBlock(new Array<null>(blockSizes[p]).fill(null), 0, blockSizes[p], level).data
          : resealBlock(stored, level);
      blockData[p].push(data);
      stats.addBytes(data.length);
    });
    columns.push(stats.finish());
  }

  const blocks: BlockMeta[] = parts.map(({ s, b }) => {
    const { rows, minTime, maxTime, bloom } = segments[s].header.blocks[b];
    return { rows, minTime, maxTime, bloom };
  });
  // Each block's own filter: the first bits of its stored value (frame filters follow them).
  const blockBits = parts.map(({ s, b }, p) =>
    Buffer.from((segments[s].blooms[b] ?? new Uint8Array(0)).subarray(0, blocks[p].bloom.bits / 8)),
  );
  const blooms = withFrameFilters(blocks, blockBits, raw);
  let bytes = 0;
  for (const bloom of blooms) bytes += bloom.length;
  for (const column of columns) bytes += column.bytes;
  const first = segments[0].header;
  const last = segments[segments.length - 1].header;
  return {
    stats: {
      rowCount,
      minTime: first.minTime,
      maxTime: last.maxTime,
      blocks,
      columns,
      bytes,
      rawBytes: raw.rawBytes,
      minuteCounts: mergeMinuteCounts(segments.map(({ header }) => header.minuteCounts)),
    },
    blockData,
    blooms,
    sources: segments.length === 1 ? first.sources : mergeSources(segments.map(({ header }) => header.sources)),
  };
}

/** Every row's `_raw` as a string (a row without one reads as empty, as a merge reads it). */
function partLines(blocks: readonly Uint8Array[], blockSizes: readonly number[], rowCount: number): string[] {
  const lines = new Array<string>(rowCount);
  let row = 0;
  blocks.forEach((block, p) => {
    const column = decodeColumnBlock(block);
    const n = blockSizes[p];
    if (columnLength(column) !== n) throw new Error('rewriteSegments: a _raw block holds another row count than its header');
    for (let i = 0; i < n; i++) {
      const value = valueAt(column, i);
      lines[row++] = typeof value === 'string' ? value : value === null ? '' : String(value);
    }
  });
  return lines;
}

function decodeOrNull(block: Uint8Array | null, rows: number): Column {
  return block === null ? { kind: 'const', value: null, length: rows } : decodeColumnBlock(block);
}

/** The first row of each block. */
function blockStarts(blockSizes: readonly number[]): Float64Array {
  const starts = new Float64Array(blockSizes.length);
  for (let p = 1; p < blockSizes.length; p++) starts[p] = starts[p - 1] + blockSizes[p - 1];
  return starts;
}

/** A field's value at an output row, from its decoded blocks starting at `starts`. */
function rowReader(blocks: readonly Column[], starts: Float64Array): FieldRows {
  return (row) => {
    // The last block starting at or before the row (binary search: the encoder samples ~512 rows).
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= row) lo = mid;
      else hi = mid - 1;
    }
    return valueAt(blocks[lo], row - starts[lo]);
  };
}

/** A field's values at every output row. */
function denseValues(blocks: readonly Column[], blockSizes: readonly number[], rowCount: number): (FieldValue | null)[] {
  const values = new Array<FieldValue | null>(rowCount);
  let row = 0;
  blocks.forEach((column, p) => {
    for (let i = 0; i < blockSizes[p]; i++) values[row++] = valueAt(column, i);
  });
  return values;
}

/** The per-source summaries of rows that are those of `lists`' segments together. */
function mergeSources(lists: readonly (readonly SourceStats[])[]): SourceStats[] {
  const merged = new Map<string, SourceStats>();
  for (const list of lists) {
    for (const source of list) {
      const into = merged.get(source.name);
      if (into === undefined) {
        merged.set(source.name, { ...source, fields: [...source.fields] });
        continue;
      }
      into.rows += source.rows;
      into.rawBytes += source.rawBytes;
      into.minTime = Math.min(into.minTime, source.minTime);
      into.maxTime = Math.max(into.maxTime, source.maxTime);
      const fields = new Set(into.fields);
      for (const field of source.fields) if (fields.size < MAX_SOURCE_FIELDS) fields.add(field);
      into.fields = [...fields];
    }
  }
  return [...merged.values()];
}
