/**
 * The `_raw` column of a segment: each row block's lines as one stored block, or, when the block
 * is longer than a frame, as frames (framed-block.ts) with a token set each, from which the
 * segment encoder builds the frames' filters. With a RawRefEncoder the lines are stored as
 * skeletons (raw-refs.ts) and the referenced values' tokens go to sets of their own.
 *
 * Used by encodeSegment (a flush, a merge) and by recompressSegment (compaction rewriting one
 * segment, which keeps its other columns' blocks).
 */
import type { FieldValue } from '../core/event';
import { RAW_COLUMN } from '../core/event';
import { encodeAsciiTextBlock, rowText, type AsciiSink, type AsciiText } from './ascii-text';
import { TokenHashSet } from './bloom';
import { ColumnEncoding } from './block-envelope';
import type { ColumnBlockSummary, StringSink } from './column-encode';
import { encodeColumnBlock } from './column-encode';
import { ColumnStatsBuilder } from './column-stats-builder';
import { frameSizes, sealFramed, type Frame } from './framed-block';
import type { ColumnStats } from './header';
import { encodeRawRefsBlock, type RawRefEncoder } from './raw-refs';

/** The lines in sorted row order: as strings, or as ASCII bytes (a flush) read through `order`. */
export type RawLines = { raws: ArrayLike<string>; text: null; order: null } | { raws: null; text: AsciiText; order: Uint32Array | null };

export interface EncodedRawColumn {
  /** One stored block per row block. */
  blockData: Buffer[];
  stats: ColumnStats;
  /** UTF-8 bytes of the lines. */
  rawBytes: number;
  /** Per row block: each frame's rows, oldest first, or null when the block is not framed. */
  frameRows: (number[] | null)[];
  /** Per row block: each frame's tokens (with references, its skeletons'), or null when the block is not framed. */
  frameTokens: (TokenHashSet[] | null)[];
  /** Per row block: each frame's referenced-value tokens, or null (not framed, or no references). */
  frameRefTokens: (TokenHashSet[] | null)[];
}

/**
 * Encodes the lines cut into row blocks of `blockSizes` rows. Every token of a block's lines goes
 * to `blockTokens[b]` when given (the block filter); frames also keep theirs apart.
 */
export function encodeRawColumn(
  lines: RawLines,
  blockSizes: readonly number[],
  level: number,
  refs: RawRefEncoder | null,
  blockTokens: readonly TokenHashSet[] | null,
): EncodedRawColumn {
  const { raws, text, order } = lines;
  if (refs !== null && raws === null) throw new Error('encodeRawColumn: field references need the lines as strings');
  let rawBytes = 0;
  const stats = new ColumnStatsBuilder(RAW_COLUMN);
  // The codec hands its UTF-8 to the token set as it writes it (every line, or every dictionary
  // entry), which is cheaper to scan than the JS strings; ASCII bytes are scanned as bytes.
  let tokens = new TokenHashSet();
  let refTokens = tokens;
  const rawSink: StringSink = { addUtf8: (t, bytes, s, e) => tokens.addUtf8(t, bytes, s, e) };
  const rawAsciiSink: AsciiSink = (bytes, s, e) => tokens.addAsciiBytes(bytes, s, e);
  const addRefTokens = (value: string): void => refTokens.addText(value);

  /** Rows [start, end) as one stored block, their tokens going to `tokens` (and `refTokens`). */
  const encodeRows = (start: number, end: number): Buffer => {
    if (refs !== null && raws !== null) {
      const skeletons = new Array<string>(end - start);
      for (let i = start; i < end; i++) skeletons[i - start] = refs.encode(raws[i], i, addRefTokens);
      const data = encodeRawRefsBlock(skeletons, refs.names, level, rawSink);
      const summary = lineSummary(raws, start, end);
      stats.add(summary, data.length, raws, start, end);
      rawBytes += summary.stringBytes;
      return data;
    }
    const direct = text === null ? null : encodeAsciiTextBlock(text, order, start, end, level, rawAsciiSink);
    if (direct !== null && text !== null) {
      stats.addAscii(direct.summary, direct.data.length, text, order, start, end);
      rawBytes += direct.summary.stringBytes;
      return direct.data;
    }
    // Strings: all of them, or (bytes that would rather be a dictionary) this range's.
    const [values, from, to] = raws !== null ? [raws, start, end] : [blockTexts(text as AsciiText, order, start, end), 0, end - start];
    const { data, summary } = encodeColumnBlock(values, from, to, level, rawSink);
    stats.add(summary, data.length, values, from, to);
    rawBytes += summary.stringBytes;
    if (summary.encoding === ColumnEncoding.Mixed) addStringTokens(tokens, values, from, to);
    return data;
  };

  const blockData: Buffer[] = [];
  const frameRows: (number[] | null)[] = [];
  const frameTokens: (TokenHashSet[] | null)[] = [];
  const frameRefTokens: (TokenHashSet[] | null)[] = [];
  // Frames of a segment hold about as many tokens each: a set is sized for its predecessor's count.
  let frameTokenHint = 0;
  let frameRefTokenHint = 0;
  for (let b = 0, start = 0; b < blockSizes.length; start += blockSizes[b], b++) {
    const end = start + blockSizes[b];
    const sizes = frameSizes(end - start);
    frameRows.push(sizes);
    if (sizes === null) {
      tokens = refTokens = blockTokens?.[b] ?? new TokenHashSet();
      blockData.push(encodeRows(start, end));
      frameTokens.push(null);
      frameRefTokens.push(null);
      continue;
    }
    const frames: Frame[] = [];
    const sets: TokenHashSet[] = [];
    const refSets: TokenHashSet[] = [];
    for (let f = 0, from = start; f < sizes.length; from += sizes[f], f++) {
      const to = from + sizes[f];
      tokens = new TokenHashSet(frameTokenHint);
      refTokens = refs === null ? tokens : new TokenHashSet(frameRefTokenHint);
      frames.push({ rows: to - from, data: encodeRows(from, to) });
      sets.push(tokens);
      frameTokenHint = tokens.size;
      if (refs !== null) {
        refSets.push(refTokens);
        frameRefTokenHint = refTokens.size;
      }
      const block = blockTokens?.[b];
      if (block === undefined) continue;
      if (from === start) block.reserve(tokens.size * sizes.length);
      block.addAll(tokens);
      if (refs !== null) block.addAll(refTokens);
    }
    const sealed = sealFramed(frames);
    stats.addBytes(sealed.length - frames.reduce((sum, frame) => sum + frame.data.length, 0));
    blockData.push(sealed);
    frameTokens.push(sets);
    frameRefTokens.push(refs === null ? null : refSets);
  }
  const column = stats.finish();
  if (refs !== null) column.refs = [...refs.names];
  return { blockData, stats: column, rawBytes, frameRows, frameTokens, frameRefTokens };
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

/** Adds the tokens of the strings of a number, boolean, mixed or templated block. */
export function addStringTokens(tokens: TokenHashSet, values: ArrayLike<FieldValue | null>, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v === 'string') tokens.addText(v);
  }
}
