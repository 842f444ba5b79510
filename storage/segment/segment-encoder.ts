/**
 * Turns a RowSet into a segment: rows sorted by `_time` (stable), cut into row blocks of
 * `blockRows`, each column of each block one stored block, plus the header stats and the token
 * bloom filter.
 *
 * Columns: `_time`, `_raw`, then the fields by name. A field absent from a block still gets a
 * (tiny) all-null block there, so `blockData[b].length === stats.columns.length`. A block's `_raw`
 * of more than FRAME_ROWS rows is framed (framed-block.ts), with a small bloom filter per frame
 * of its `_raw` tokens, so a search decompresses only the frames that may hold its terms.
 *
 * Bloom tokens: the tokens of `_raw` and of every string field value (tokenizer.ts). A
 * `search field=value` prunes by the tokens of its value, which every string equal to it (case
 * aside) has put in the filter; numbers and booleans add no tokens (min/max stats prune numbers).
 * Segments written before 2026-11 also hold `name=value` tokens, which nothing reads any more:
 * they were as many as the text tokens again, for a filter only as selective.
 */
import type { FieldValue } from '../event';
import { RAW_COLUMN, TIME_COLUMN } from '../event';
import type { BlockMeta, ColumnStats, SegmentStats } from './header';
import { MAX_HEADER_DICT } from './header';
import { isCoded, type RowSet } from './row-set';
import { denseCodedColumn, encodeCodedBlock, type DenseCodedColumn, type TokenSink } from './coded-block';
import { DEFAULT_BLOOM_BITS_PER_TOKEN, FRAME_BLOOM_BITS_PER_TOKEN, REFS_BLOOM_BITS_PER_TOKEN, TokenHashSet, buildBloom } from './bloom';
import { FRAME_ROWS, sealFramed, type Frame } from './framed-block';
import { ColumnEncoding } from './block-envelope';
import type { ColumnBlockSummary, StringSink } from './column-encode';
import { encodeColumnBlock, encodeTimeBlock, stringsWentToSink } from './column-encode';
import { encodeAsciiTextBlock, rowText, type AsciiSink, type AsciiText } from './ascii-text';
import { RawRefEncoder, encodeRawRefsBlock } from './raw-refs';

export interface EncodeSegmentOptions {
  /** zstd level of the column blocks. */
  compressionLevel: number;
  /** Rows per row block (the flusher passes 65536). */
  blockRows: number;
  /** Bloom filter density; default DEFAULT_BLOOM_BITS_PER_TOKEN (8) bits per distinct token (~2% false positives). */
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
  let tokens = blockTokens[0] ?? new TokenHashSet();
  const columns: ColumnStats[] = [timeStats(times, blockData, level, blockRows)];

  const fields = denseFields(rows, order);

  // _raw in sorted order. The codec hands its UTF-8 to the bloom as it writes it (every line, or
  // every dictionary entry), which is cheaper to scan than the JS strings. ASCII text that arrives
  // as bytes (a flush) is copied and scanned as bytes, with no string per row.
  const rawText = rows.rawText ?? null;
  const raws = rawText !== null ? null : order === null ? rows.raws : Array.from(order, (i) => rows.raws[i]);
  let rawBytes = 0;
  const rawStats = new StatsBuilder(RAW_COLUMN);
  const rawSink: StringSink = { addUtf8: (t, bytes, s, e) => tokens.addUtf8(t, bytes, s, e) };
  const rawAsciiSink: AsciiSink = (bytes, s, e) => tokens.addAsciiBytes(bytes, s, e);
  // Compaction's `_raw` references its own field values; their tokens go to `refTokens`.
  const refs = opts.rawRefs === true && raws !== null ? RawRefEncoder.choose(raws, valueColumns(fields)) : null;
  let refTokens = tokens;
  const addRefTokens = (text: string): void => refTokens.addText(text);
  /** Encodes `_raw` rows [start, end) as one stored block, its tokens going to `tokens`. */
  const encodeRaw = (start: number, end: number): Buffer => {
    if (refs !== null && raws !== null) {
      const skeletons = new Array<string>(end - start);
      for (let i = start; i < end; i++) skeletons[i - start] = refs.encode(raws[i], i, addRefTokens);
      const data = encodeRawRefsBlock(skeletons, refs.names, level, rawSink);
      const summary = lineSummary(raws, start, end);
      rawStats.add(summary, data.length, raws, start, end);
      rawBytes += summary.stringBytes;
      return data;
    }
    const direct = rawText === null ? null : encodeAsciiTextBlock(rawText, order, start, end, level, rawAsciiSink);
    if (direct !== null && rawText !== null) {
      rawStats.addAscii(direct.summary, direct.data.length, rawText, order, start, end);
      rawBytes += direct.summary.stringBytes;
      return direct.data;
    }
    // Strings: all of them, or (bytes that would rather be a dictionary) this range's.
    const [values, from, to] = raws !== null ? [raws, start, end] : [blockTexts(rawText as AsciiText, order, start, end), 0, end - start];
    const { data, summary } = encodeColumnBlock(values, from, to, level, rawSink);
    rawStats.add(summary, data.length, values, from, to);
    rawBytes += summary.stringBytes;
    if (summary.encoding === ColumnEncoding.Mixed) addStringTokens(tokens, values, from, to);
    return data;
  };
  // A row block's `_raw` longer than a frame is framed: each frame its own block and token set.
  const frameTokens: (TokenHashSet[] | null)[] = blocks.map(() => null);
  const frameRefTokens: (TokenHashSet[] | null)[] = blocks.map(() => null);
  let frameTokenHint = 0;
  let frameRefTokenHint = 0;
  for (let b = 0, start = 0; b < blocks.length; b++, start += blockRows) {
    const end = start + blocks[b].rows;
    if (end - start <= FRAME_ROWS) {
      tokens = refTokens = blockTokens[b];
      blockData[b].push(encodeRaw(start, end));
      continue;
    }
    const frames: Frame[] = [];
    const sets: TokenHashSet[] = [];
    const refSets: TokenHashSet[] = [];
    for (let from = start; from < end; from += FRAME_ROWS) {
      const to = Math.min(end, from + FRAME_ROWS);
      // Frames of a segment hold about as many tokens each: size a set for its predecessor's count.
      tokens = new TokenHashSet(frameTokenHint);
      refTokens = refs === null ? tokens : new TokenHashSet(frameRefTokenHint);
      frames.push({ rows: to - from, data: encodeRaw(from, to) });
      sets.push(tokens);
      frameTokenHint = tokens.size;
      if (refs !== null) frameRefTokenHint = refTokens.size;
      if (from === start) blockTokens[b].reserve(tokens.size * Math.ceil((end - start) / FRAME_ROWS));
      blockTokens[b].addAll(tokens);
      if (refs !== null) {
        refSets.push(refTokens);
        blockTokens[b].addAll(refTokens);
      }
    }
    const sealed = sealFramed(frames);
    rawStats.addBytes(sealed.length - frames.reduce((sum, frame) => sum + frame.data.length, 0));
    blockData[b].push(sealed);
    frameTokens[b] = sets;
    if (refs !== null) frameRefTokens[b] = refSets;
  }
  const rawColumn = rawStats.finish();
  if (refs !== null) rawColumn.refs = [...refs.names];
  columns.push(rawColumn);

  // Fields, by name, each cut into blocks.
  for (const [name, dense] of fields) {
    const stats = new StatsBuilder(name);
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

  // A framed block's value: its filter's bits, then each frame's (header.ts BlockMeta.frames).
  const blooms: Buffer[] = blockTokens.map((set, b) => {
    const { bits, meta } = buildBloom(set, opts.bloomBitsPerToken ?? DEFAULT_BLOOM_BITS_PER_TOKEN);
    blocks[b].bloom = meta;
    const sets = frameTokens[b];
    if (sets === null) return bits;
    const frames = sets.map((frameSet) => buildBloom(frameSet, FRAME_BLOOM_BITS_PER_TOKEN));
    // With field references, each frame's referenced-value filter follows all the skeleton filters.
    const refFrames = frameRefTokens[b]?.map((refSet) => buildBloom(refSet, REFS_BLOOM_BITS_PER_TOKEN)) ?? null;
    const rows = blocks[b].rows;
    blocks[b].frames = frames.map((frame, f) => ({
      rows: Math.min(FRAME_ROWS, rows - f * FRAME_ROWS),
      bloom: frame.meta,
      ...(refFrames === null ? {} : { refs: refFrames[f].meta }),
    }));
    return Buffer.concat([bits, ...frames.map((frame) => frame.bits), ...(refFrames ?? []).map((frame) => frame.bits)]);
  });
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
    rawBytes,
  };
  return { stats, blockData, blooms };
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
    else out.set(name, Array.from(dense.codes, (code) => (code === 0 ? null : dense.dict[code - 1])));
  }
  return out;
}

/** What the header records of lines [start, end) stored as skeletons: the lines' own counts, range and size. */
function lineSummary(raws: ArrayLike<string>, start: number, end: number): ColumnBlockSummary {
  let minString: string | null = null;
  let maxString: string | null = null;
  let stringBytes = 0;
  for (let i = start; i < end; i++) {
    const line = raws[i];
    if (minString === null || line < minString) minString = line;
    if (maxString === null || line > maxString) maxString = line;
    stringBytes += Buffer.byteLength(line, 'utf8');
  }
  return {
    encoding: ColumnEncoding.RawRefs,
    counts: { string: end - start, number: 0, integer: 0, boolean: 0 },
    nullCount: 0,
    min: null,
    max: null,
    minString,
    maxString,
    dict: null,
    stringBytes,
  };
}

/** Rows `start..end` of ASCII text (in sort order) as strings. */
function blockTexts(text: AsciiText, order: Uint32Array | null, start: number, end: number): string[] {
  const out = new Array<string>(end - start);
  for (let i = start; i < end; i++) out[i - start] = rowText(text, order === null ? i : order[i]);
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

/** Adds the tokens of the strings of a number, boolean, mixed or templated block. */
function addStringTokens(tokens: TokenHashSet, values: ArrayLike<FieldValue | null>, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v === 'string') tokens.addText(v);
  }
}

/** Folds block summaries into one column's ColumnStats. */
class StatsBuilder {
  private counts = { string: 0, number: 0, integer: 0, boolean: 0 };
  private nullCount = 0;
  private min: number | null = null;
  private max: number | null = null;
  private minString: string | null = null;
  private maxString: string | null = null;
  /** Distinct strings while there are at most MAX_HEADER_DICT; null past that. */
  private distinct: Set<string> | null = new Set();
  private bytes = 0;

  constructor(private readonly name: string) {}

  add(s: ColumnBlockSummary, bytes: number, values: ArrayLike<FieldValue | null>, start: number, end: number): void {
    this.addSummary(s, bytes);
    if (this.distinct === null || s.counts.string === 0) return;
    if (s.dict !== null) {
      for (const v of s.dict) this.distinct.add(v);
    } else {
      // Plain blocks hold > MAX_HEADER_DICT distinct strings; mixed ones are walked (rare).
      for (let i = start; i < end && this.distinct.size <= MAX_HEADER_DICT; i++) {
        const v = values[i];
        if (typeof v === 'string') this.distinct.add(v);
      }
    }
    if (this.distinct.size > MAX_HEADER_DICT) this.distinct = null;
  }

  /** add() for a plain block written from ASCII bytes (rows `order[start..end)`). */
  addAscii(s: ColumnBlockSummary, bytes: number, text: AsciiText, order: Uint32Array | null, start: number, end: number): void {
    this.addSummary(s, bytes);
    for (let i = start; this.distinct !== null && i < end && this.distinct.size <= MAX_HEADER_DICT; i++) {
      this.distinct.add(rowText(text, order === null ? i : order[i]));
    }
    if (this.distinct !== null && this.distinct.size > MAX_HEADER_DICT) this.distinct = null;
  }

  /** Stored bytes that belong to no block summary (a framed block's frame table). */
  addBytes(bytes: number): void {
    this.bytes += bytes;
  }

  private addSummary(s: ColumnBlockSummary, bytes: number): void {
    this.counts.string += s.counts.string;
    this.counts.number += s.counts.number;
    this.counts.integer += s.counts.integer;
    this.counts.boolean += s.counts.boolean;
    this.nullCount += s.nullCount;
    this.bytes += bytes;
    if (s.min !== null && (this.min === null || s.min < this.min)) this.min = s.min;
    if (s.max !== null && (this.max === null || s.max > this.max)) this.max = s.max;
    if (s.minString !== null && (this.minString === null || s.minString < this.minString)) this.minString = s.minString;
    if (s.maxString !== null && (this.maxString === null || s.maxString > this.maxString)) this.maxString = s.maxString;
  }

  finish(): ColumnStats {
    return {
      name: this.name,
      counts: this.counts,
      nullCount: this.nullCount,
      min: this.min,
      max: this.max,
      minString: this.minString,
      maxString: this.maxString,
      dict: this.distinct === null ? null : [...this.distinct].sort(),
      bytes: this.bytes,
    };
  }
}
