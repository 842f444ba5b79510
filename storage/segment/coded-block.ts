/**
 * Encodes a block of a coded string field (row-set.ts CodedColumn) into exactly the stored block
 * encodeColumnBlock writes for the same strings, deciding on codes instead of JS values: a
 * dictionary when the block's distinct values are few (found with a stamp per code, no hashing),
 * else the plain layouts, for which the block's strings are looked up once.
 */
import { ColumnEncoding, sealBlock } from './block-envelope';
import {
  DICT_ALWAYS,
  DICT_PROBE_ROWS,
  emptySummary,
  payloadWriter,
  sealDict,
  sealStrings,
  type ColumnBlockSummary,
  type EncodedColumnBlock,
  type StringSink,
} from './column-encode';

/** Where a block's bloom tokens go: a dictionary's entries as written, a plain block's distinct values as text. */
export interface TokenSink extends StringSink {
  addText(text: string): void;
}

/** A coded field in sorted row order: `codes[row]` is 0 for null, else its dictionary index + 1. */
export interface DenseCodedColumn {
  codes: Uint32Array;
  dict: readonly string[];
  dictBytes: Uint32Array;
  /** Scratch: per code + 1, the stamp of the last block that saw it, and its code in that block. */
  stamps: Uint32Array;
  blockCodes: Uint32Array;
  stamp: number;
}

export function denseCodedColumn(rowCount: number, dict: readonly string[], dictBytes: Uint32Array): DenseCodedColumn {
  return {
    codes: new Uint32Array(rowCount),
    dict,
    dictBytes,
    stamps: new Uint32Array(dict.length + 1),
    blockCodes: new Uint32Array(dict.length + 1),
    stamp: 0,
  };
}

/** A coded block: as encodeColumnBlock, plus the strings of a plain block (for its header stats). */
export interface EncodedCodedBlock extends EncodedColumnBlock {
  /** Rows `start..end` as strings (null where absent), when the block is not a dictionary. */
  values: (string | null)[] | null;
}

export function encodeCodedBlock(column: DenseCodedColumn, start: number, end: number, level: number, sink: TokenSink): EncodedCodedBlock {
  const n = end - start;
  const { codes } = column;
  let nonNull = 0;
  for (let i = start; i < end; i++) if (codes[i] !== 0) nonNull++;
  const s = emptySummary();
  s.counts = { string: nonNull, number: 0, integer: 0, boolean: 0 };
  s.nullCount = n - nonNull;
  if (nonNull === 0) return { data: sealBlock(ColumnEncoding.AllNull, n, new Uint8Array(0), level), summary: s, values: null };
  const data = encodeCodedDict(column, start, end, level, s, nonNull, sink);
  if (data !== null) return { data, summary: s, values: null };
  return encodeCodedPlain(column, start, end, level, s, sink);
}

/**
 * column-encode.ts encodePlain over codes: the range, byte count and tokens come from each
 * distinct value once, and the list is written only when no typed layout fits.
 */
function encodeCodedPlain(
  column: DenseCodedColumn,
  start: number,
  end: number,
  level: number,
  s: ColumnBlockSummary,
  sink: TokenSink,
): EncodedCodedBlock {
  const n = end - start;
  const { codes, stamps, dict, dictBytes } = column;
  const stamp = ++column.stamp;
  const values = new Array<string | null>(n);
  let lo: string | null = null;
  let hi: string | null = null;
  let units = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const code = codes[start + i];
    if (code === 0) {
      values[i] = null;
      continue;
    }
    const v = dict[code - 1];
    values[i] = v;
    units += v.length;
    bytes += dictBytes[code - 1];
    if (stamps[code] === stamp) continue;
    stamps[code] = stamp;
    sink.addText(v);
    if (lo === null || v < lo) lo = v;
    if (hi === null || v > hi) hi = v;
  }
  s.minString = lo;
  s.maxString = hi;
  s.stringBytes = bytes;
  const w = payloadWriter(units + n * 3 + 64);
  return { data: sealStrings(w, values, 0, n, level, s, false), summary: s, values };
}

/** column-encode.ts encodeDict over codes: the same decisions, the same bytes. */
function encodeCodedDict(
  column: DenseCodedColumn,
  start: number,
  end: number,
  level: number,
  s: ColumnBlockSummary,
  nonNull: number,
  sink: StringSink,
): Buffer | null {
  const n = end - start;
  const { codes, stamps, blockCodes, dict: strings } = column;
  const stamp = ++column.stamp;
  const limit = Math.max(DICT_ALWAYS, nonNull >>> 1);
  /** The block's distinct codes (+ 1), in order of first sight. */
  const seen: number[] = [];
  const first = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    if (i === DICT_PROBE_ROWS && seen.length * 4 > DICT_PROBE_ROWS * 3) return null;
    const code = codes[start + i];
    if (code === 0) continue;
    if (stamps[code] !== stamp) {
      if (seen.length >= limit) return null;
      stamps[code] = stamp;
      seen.push(code);
      blockCodes[code] = seen.length;
    }
    first[i] = blockCodes[code];
  }
  // Sorted dictionary, as encodeDict sorts its strings (distinct codes are distinct strings).
  const sorted = seen.slice().sort((a, b) => {
    const x = strings[a - 1];
    const y = strings[b - 1];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const dict = sorted.map((code) => strings[code - 1]);
  const remap = new Uint32Array(dict.length + 1);
  for (let j = 0; j < sorted.length; j++) remap[blockCodes[sorted[j]]] = j + 1;
  return sealDict(
    dict,
    Array.from(sorted, (code) => column.dictBytes[code - 1]),
    first,
    remap,
    level,
    s,
    sink,
  );
}
