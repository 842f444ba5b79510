/**
 * Turns a RowSet into a segment: rows sorted by `_time` (stable), cut into row blocks of
 * `blockRows`, each column of each block one stored block, plus the header stats and the token
 * bloom filter.
 *
 * Columns: `_time`, `_raw`, then the fields by name. A field absent from a block still gets a
 * (tiny) all-null block there, so `blockData[b].length === stats.columns.length`. A block's `_raw`
 * is framed (framed-block.ts frameSizes: all but the smallest blocks), with a small bloom filter
 * per frame of its `_raw` tokens, so a search decompresses only the frames that may hold its terms.
 *
 * Bloom tokens: the tokens of `_raw` and of every string field value (tokenizer.ts). A
 * `search field=value` prunes by the tokens of its value, which every string equal to it (case
 * aside) has put in the filter; numbers and booleans add no tokens (min/max stats prune numbers).
 * Segments written before 2026-11 also hold `name=value` tokens, which nothing reads any more:
 * they were as many as the text tokens again, for a filter only as selective.
 */
import type { FieldValue } from '../core/event';
import { RAW_COLUMN, TIME_COLUMN } from '../core/event';
import type { BlockMeta, ColumnStats, SegmentStats } from './header';
import { isCoded, type RowSet } from './row-set';
import { denseCodedColumn, encodeCodedBlock, type DenseCodedColumn, type TokenSink } from './coded-block';
import {
  DEFAULT_BLOOM_BITS_PER_TOKEN,
  FRAME_BLOOM_BITS_PER_TOKEN,
  REFS_BLOOM_BITS_PER_TOKEN,
  UNFRAMED_BLOOM_BITS_PER_TOKEN,
  TokenHashSet,
  buildBloom,
} from './bloom';
import { ColumnEncoding } from './block-envelope';
import { encodeColumnBlock, encodeTimeBlock, stringsWentToSink } from './column-encode';
import { ColumnStatsBuilder } from './column-stats-builder';
import { addStringTokens, encodeRawColumn, type EncodedRawColumn, type RawLines } from './raw-column';
import { RawRefEncoder } from './raw-refs';
import { minuteCountsOf } from './minute-counts';

export interface EncodeSegmentOptions {
  /** zstd level of the column blocks. */
  compressionLevel: number;
  /** Rows per row block (the flusher passes 65536). */
  blockRows: number;
  /** Bloom filter density, bits per distinct token; by default 8 (~2% false positives) for framed blocks, 12 (~0.3%) for the others (bloom.ts). */
  bloomBitsPerToken?: number;
  /**
   * Store `_raw` with references to the row's own field values (raw-refs.ts): compaction's
   * output. The flusher writes `_raw` whole: it must keep up with ingest.
   */
  rawRefs?: boolean;
}

export interface EncodedSegment {
  stats: SegmentStats;
  /** `blockData[b][c]`: row block b of column `stats.columns[c]`. */
  blockData: Buffer[][];
  /** Each row block's bloom filter bits, described by `stats.blocks[b].bloom`. */
  blooms: Buffer[];
}

export function encodeSegment(rows: RowSet, opts: EncodeSegmentOptions): EncodedSegment {
  const n = rows.count;
  const rawCount = rows.rawText === undefined ? rows.raws.length : rows.rawText.ends.length;
  if (rows.times.length !== n || rawCount !== n) throw new Error('encodeSegment: times/raws length differs from count');
  const blockRows = opts.blockRows;
  if (!Number.isInteger(blockRows) || blockRows < 1) throw new Error(`encodeSegment: bad blockRows ${blockRows}`);
  const level = opts.compressionLevel;

  const order = sortOrder(rows.times, n);
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) times[i] = rows.times[order === null ? i : order[i]];

  const blocks: BlockMeta[] = [];
  const blockData: Buffer[][] = [];
  for (let start = 0; start < n; start += blockRows) {
    const end = Math.min(n, start + blockRows);
    blocks.push({ rows: end - start, minTime: times[start], maxTime: times[end - 1], bloom: { bits: 0, hashes: 0, tokens: 0 } });
    blockData.push([]);
  }

  // One token set per row block: its bloom filter prunes that block alone.
  const blockTokens = blocks.map(() => new TokenHashSet());
  const columns: ColumnStats[] = [timeStats(times, blockData, level, blockRows)];

  const fields = denseFields(rows, order);

  // _raw in sorted order: ASCII text that arrives as bytes (a flush) is copied and scanned as bytes.
  // Compaction's `_raw` references its own field values (raw-refs.ts).
  const rawText = rows.rawText ?? null;
  const lines: RawLines =
    rawText !== null
      ? { raws: null, text: rawText, order }
      : { raws: order === null ? rows.raws : Array.from(order, (i) => rows.raws[i]), text: null, order: null };
  const refs = opts.rawRefs === true && lines.raws !== null ? RawRefEncoder.choose(lines.raws, valueColumns(fields)) : null;
  const raw = encodeRawColumn(
    lines,
    blocks.map((block) => block.rows),
    level,
    refs,
    blockTokens,
  );
  raw.blockData.forEach((data, b) => blockData[b].push(data));
  columns.push(raw.stats);

  // Fields, by name, each cut into blocks.
  let tokens = blockTokens[0] ?? new TokenHashSet();
  for (const [name, dense] of fields) {
    const stats = new ColumnStatsBuilder(name);
    const sink: TokenSink = { addUtf8: (t, bytes, s, e) => tokens.addUtf8(t, bytes, s, e), addText: (text) => tokens.addText(text) };
    for (let b = 0, start = 0; b < blocks.length; b++, start += blockRows) {
      const end = start + blocks[b].rows;
      tokens = blockTokens[b];
      if (!Array.isArray(dense)) {
        // Coded strings: every encoding they get hands its strings to the sink.
        const { data, summary, values } = encodeCodedBlock(dense as DenseCodedColumn, start, end, level, sink);
        blockData[b].push(data);
        stats.add(summary, data.length, values ?? [], 0, values === null ? 0 : end - start);
        continue;
      }
      const { data, summary } = encodeColumnBlock(dense, start, end, level, sink);
      blockData[b].push(data);
      stats.add(summary, data.length, dense, start, end);
      // Dict and plain string blocks went through the sink; the other kinds are walked here.
      const e = summary.encoding;
      if (!stringsWentToSink(e) && e !== ColumnEncoding.AllNull) {
        addStringTokens(tokens, dense, start, end);
      }
    }
    columns.push(stats.finish());
  }

  const blockBits = blockTokens.map((set, b) => {
    const density = raw.frameTokens[b] === null ? UNFRAMED_BLOOM_BITS_PER_TOKEN : DEFAULT_BLOOM_BITS_PER_TOKEN;
    const { bits, meta } = buildBloom(set, opts.bloomBitsPerToken ?? density);
    blocks[b].bloom = meta;
    return bits;
  });
  const blooms = withFrameFilters(blocks, blockBits, raw);
  let bytes = 0;
  for (const bloom of blooms) bytes += bloom.length;
  for (const c of columns) bytes += c.bytes;
  const stats: SegmentStats = {
    rowCount: n,
    minTime: n > 0 ? times[0] : 0,
    maxTime: n > 0 ? times[n - 1] : 0,
    blocks,
    columns,
    bytes,
    rawBytes: raw.rawBytes,
    minuteCounts: minuteCountsOf(times, n),
  };
  return { stats, blockData, blooms };
}

/**
 * Each row block's stored filter value: the block filter's bits, then, for a framed `_raw`, each
 * frame's filter, then (with field references) each frame's referenced-value filter, all in frame
 * order (header.ts BlockMeta.frames). Sets `blocks[b].frames`.
 */
export function withFrameFilters(
  blocks: BlockMeta[],
  blockBits: readonly Buffer[],
  raw: Pick<EncodedRawColumn, 'frameRows' | 'frameTokens' | 'frameRefTokens'>,
): Buffer[] {
  return blockBits.map((bits, b) => {
    const sets = raw.frameTokens[b];
    if (sets === null) return bits;
    const frames = sets.map((frameSet) => buildBloom(frameSet, FRAME_BLOOM_BITS_PER_TOKEN));
    const refFrames = raw.frameRefTokens[b]?.map((refSet) => buildBloom(refSet, REFS_BLOOM_BITS_PER_TOKEN)) ?? null;
    // A block with frame token sets was framed: encodeRawColumn records its frames' rows beside them.
    const rows = raw.frameRows[b]!;
    blocks[b].frames = frames.map((frame, f) => ({
      rows: rows[f],
      bloom: frame.meta,
      ...(refFrames === null ? {} : { refs: refFrames[f].meta }),
    }));
    return Buffer.concat([bits, ...frames.map((frame) => frame.bits), ...(refFrames ?? []).map((frame) => frame.bits)]);
  });
}

/** A field in sorted row order: its values (null where a row has none), or its codes. */
type DenseField = (FieldValue | null)[] | DenseCodedColumn;

/** Each field in sorted row order, by name. */
function denseFields(rows: RowSet, order: Uint32Array | null): Map<string, DenseField> {
  const n = rows.count;
  const inverse = order === null ? null : invert(order);
  const out = new Map<string, DenseField>();
  for (const name of [...rows.fields.keys()].sort()) {
    if (name === TIME_COLUMN || name === RAW_COLUMN) throw new Error(`encodeSegment: field name ${name} is reserved`);
    const col = rows.fields.get(name)!;
    const entries = isCoded(col) ? col.codes.length : col.values.length;
    if (col.rows.length !== entries) throw new Error(`encodeSegment: field ${name}: rows/values length differs`);
    if (entries === 0) continue;
    for (let j = 0; j < entries; j++) {
      const r = col.rows[j];
      if (!(r >= 0 && r < n)) throw new Error(`encodeSegment: field ${name}: row ${r} out of range`);
    }
    if (isCoded(col)) {
      const dense = denseCodedColumn(n, col.dict, col.dictBytes);
      const { codes } = dense;
      for (let j = 0; j < entries; j++) codes[inverse === null ? col.rows[j] : inverse[col.rows[j]]] = col.codes[j] + 1;
      out.set(name, dense);
      continue;
    }
    const dense = new Array<FieldValue | null>(n).fill(null);
    for (let j = 0; j < entries; j++) dense[inverse === null ? col.rows[j] : inverse[col.rows[j]]] = col.values[j];
    out.set(name, dense);
  }
  return out;
}

/** The fields as values (compaction's raw references read values; a flush's coded fields are looked up). */
function valueColumns(fields: Map<string, DenseField>): Map<string, ArrayLike<FieldValue | null>> {
  const out = new Map<string, ArrayLike<FieldValue | null>>();
  for (const [name, dense] of fields) {
    if (Array.isArray(dense)) out.set(name, dense);
    else
      out.set(
        name,
        Array.from(dense.codes, (code) => (code === 0 ? null : dense.dict[code - 1])),
      );
  }
  return out;
}

/** Stable sort order of the rows by time, or null when they are already sorted. */
function sortOrder(times: ArrayLike<number>, n: number): Uint32Array | null {
  let sorted = true;
  for (let i = 0; i < n; i++) {
    const t = times[i];
    if (typeof t !== 'number' || t - t !== 0) throw new Error(`encodeSegment: row ${i} has a non-finite time`);
    if (i > 0 && t < times[i - 1]) sorted = false;
  }
  if (sorted) return null;
  const idx = new Array<number>(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  // Array.prototype.sort is a stable TimSort: near-sorted input (the usual case) is ~linear.
  idx.sort((a, b) => times[a] - times[b]);
  return Uint32Array.from(idx);
}

function invert(order: Uint32Array): Uint32Array {
  const inv = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) inv[order[i]] = i;
  return inv;
}

function timeStats(times: Float64Array, blockData: Buffer[][], level: number, blockRows: number): ColumnStats {
  const n = times.length;
  let bytes = 0;
  for (let b = 0; b < blockData.length; b++) {
    const start = b * blockRows;
    const data = encodeTimeBlock(times, start, Math.min(n, start + blockRows), level);
    blockData[b].push(data);
    bytes += data.length;
  }
  let integer = 0;
  for (let i = 0; i < n; i++) if (Number.isInteger(times[i])) integer++;
  return {
    name: TIME_COLUMN,
    counts: { string: 0, number: n, integer, boolean: 0 },
    nullCount: 0,
    min: n > 0 ? times[0] : null,
    max: n > 0 ? times[n - 1] : null,
    minString: null,
    maxString: null,
    dict: [],
    bytes,
  };
}
