/**
 * Encodes one column of one row block into a stored block (see block-envelope.ts), choosing the
 * encoding from the values: numbers, booleans, low-cardinality strings (dictionary), other
 * strings, mixed types, or all null. A value keeps its type: 200 stays a number, "200" a string.
 *
 * Non-finite numbers (NaN, +-Infinity) are stored as null: JSON, and so every ingest format and
 * API response, cannot carry them. -0 is kept (float64 path).
 */
import type { FieldValue } from '../event';
import { ColumnEncoding, sealBlock } from './block-envelope';
import { ByteWriter, packBits, zigzag } from './bytes';
import type { StringSink } from './string-list';
import { writeStringList } from './string-list';

export type { StringSink };

/** What a block holds, for the segment's ColumnStats and bloom filter. */
export interface ColumnBlockSummary {
  encoding: ColumnEncoding;
  counts: { string: number; number: number; integer: number; boolean: number };
  nullCount: number;
  min: number | null;
  max: number | null;
  minString: string | null;
  maxString: string | null;
  /** The block's distinct strings, sorted, when it is dictionary-encoded; else null. */
  dict: string[] | null;
  /** Total UTF-8 bytes of the block's string values. */
  stringBytes: number;
}

export interface EncodedColumnBlock {
  data: Buffer;
  summary: ColumnBlockSummary;
}

/** Dictionaries of up to this many entries are always used (and match MAX_HEADER_DICT). */
const DICT_ALWAYS = 256;
/** After this many rows, a dictionary with more than 3/4 distinct values is given up early. */
const DICT_PROBE_ROWS = 4096;
const MAX_SAFE_DELTA = 2 ** 52;
/** The payload scratch is kept between calls up to this size (sealBlock copies out of it). */
const MAX_SCRATCH_BYTES = 32 * 1024 * 1024;

let scratch: ByteWriter | null = null;

/** An empty writer for a payload, reusing one buffer across calls (blocks are sealed at once). */
export function payloadWriter(capacity: number): ByteWriter {
  if (scratch === null) scratch = new ByteWriter(Math.max(capacity, 64 * 1024));
  scratch.pos = 0;
  scratch.ensure(capacity);
  return scratch;
}

/** Compresses a payload written with payloadWriter into a stored block. */
export function seal(w: ByteWriter, encoding: ColumnEncoding, rows: number, level: number): Buffer {
  const out = sealBlock(encoding, rows, w.finish(), level);
  if (w === scratch && w.buf.length > MAX_SCRATCH_BYTES) scratch = null;
  return out;
}

type Value = FieldValue | null | undefined;

/** Encodes event times (microseconds). Sorted integral times give ~1 byte per row before zstd. */
export function encodeTimeBlock(times: ArrayLike<number>, start: number, end: number, level: number): Buffer {
  const n = end - start;
  let deltas = n > 0 && Number.isSafeInteger(times[start]);
  for (let i = start + 1; deltas && i < end; i++) {
    const t = times[i];
    deltas = Number.isSafeInteger(t) && Math.abs(t - times[i - 1]) < MAX_SAFE_DELTA;
  }
  const w = payloadWriter(n * 2 + 16);
  if (!deltas) {
    const f = new Float64Array(n);
    for (let i = 0; i < n; i++) f[i] = times[start + i];
    w.typed(f);
    return seal(w, ColumnEncoding.TimeFloat, n, level);
  }
  let sortedSmall = true;
  for (let i = start + 1; sortedSmall && i < end; i++) {
    const delta = times[i] - times[i - 1];
    sortedSmall = delta >= 0 && delta < 2 ** 32;
  }
  w.typed(new Float64Array([times[start]]));
  if (sortedSmall) {
    const deltas = new Uint32Array(Math.max(0, n - 1));
    for (let i = start + 1; i < end; i++) deltas[i - start - 1] = times[i] - times[i - 1];
    w.typed(deltas);
    return seal(w, ColumnEncoding.TimeDelta32, n, level);
  }
  for (let i = start + 1; i < end; i++) w.varint(zigzag(times[i] - times[i - 1]));
  return seal(w, ColumnEncoding.TimeDelta, n, level);
}

/**
 * Encodes `values[start..end)` (null/undefined = absent). `sink`, if given, receives the UTF-8
 * of the strings written: every row of a plain string block, every entry of a dictionary (not
 * the strings of mixed blocks: `summary.encoding` tells which).
 */
export function encodeColumnBlock(
  values: ArrayLike<Value>,
  start: number,
  end: number,
  level: number,
  sink?: StringSink,
): EncodedColumnBlock {
  const n = end - start;
  const s: ColumnBlockSummary = {
    encoding: ColumnEncoding.AllNull,
    counts: { string: 0, number: 0, integer: 0, boolean: 0 },
    nullCount: 0,
    min: null,
    max: null,
    minString: null,
    maxString: null,
    dict: null,
    stringBytes: 0,
  };
  let nStr = 0;
  let nNum = 0;
  let nInt = 0;
  let nBool = 0;
  let min = Infinity;
  let max = -Infinity;
  let int32 = true;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v === 'string') nStr++;
    else if (typeof v === 'number') {
      if (v - v !== 0) continue; // NaN and +-Infinity: null
      nNum++;
      if (v < min) min = v;
      if (v > max) max = v;
      if ((v | 0) === v) {
        nInt++;
        if (v === 0 && 1 / v < 0) int32 = false; // -0
      } else {
        int32 = false;
        if (Number.isInteger(v)) nInt++;
      }
    } else if (typeof v === 'boolean') nBool++;
  }
  const nonNull = nStr + nNum + nBool;
  s.counts = { string: nStr, number: nNum, integer: nInt, boolean: nBool };
  s.nullCount = n - nonNull;
  if (nNum > 0) {
    s.min = min;
    s.max = max;
  }
  const types = (nStr > 0 ? 1 : 0) + (nNum > 0 ? 1 : 0) + (nBool > 0 ? 1 : 0);
  let data: Buffer;
  if (nonNull === 0) {
    data = sealBlock(ColumnEncoding.AllNull, n, new Uint8Array(0), level);
  } else if (types > 1) {
    data = encodeMixed(values, start, end, level, s);
  } else if (nNum > 0) {
    data = encodeNumbers(values, start, end, level, s, int32, nInt === nNum);
  } else if (nBool > 0) {
    data = encodeBooleans(values, start, end, level, s);
  } else {
    data = encodeDict(values, start, end, level, s, nStr, sink) ?? encodePlain(values, start, end, level, s, sink);
  }
  return { data, summary: s };
}

/** Null bitmap section: flags bit 0 says whether one follows. */
function writeNulls(w: ByteWriter, values: ArrayLike<Value>, start: number, end: number, type: string, hasNulls: boolean): void {
  if (!hasNulls) return;
  const flags = new Uint8Array(end - start);
  for (let i = start; i < end; i++) if (typeof values[i] !== type || !isFiniteIfNumber(values[i])) flags[i - start] = 1;
  w.bytes(packBits(flags, 0, end - start));
}

function isFiniteIfNumber(v: Value): boolean {
  return typeof v !== 'number' || v - v === 0;
}

function encodeNumbers(
  values: ArrayLike<Value>,
  start: number,
  end: number,
  level: number,
  s: ColumnBlockSummary,
  int32: boolean,
  allIntegers: boolean,
): Buffer {
  const n = end - start;
  const hasNulls = s.nullCount > 0;
  const w = payloadWriter(n * 8 + 64);
  if (int32) {
    // Narrowest width holding min..max; null slots are 0.
    const lo = s.min ?? 0;
    const hi = s.max ?? 0;
    const width = lo >= -128 && hi <= 127 ? 1 : lo >= -32768 && hi <= 32767 ? 2 : 4;
    const arr = width === 1 ? new Int8Array(n) : width === 2 ? new Int16Array(n) : new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[start + i];
      if (typeof v === 'number' && v - v === 0) arr[i] = v;
    }
    w.u8(hasNulls ? 1 : 0);
    w.u8(width);
    writeNulls(w, values, start, end, 'number', hasNulls);
    w.typed(arr);
    s.encoding = ColumnEncoding.NumberInt;
    return seal(w, ColumnEncoding.NumberInt, n, level);
  }
  const arr = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[start + i];
    if (typeof v === 'number' && v - v === 0) arr[i] = v;
  }
  w.u8((hasNulls ? 1 : 0) | (allIntegers ? 2 : 0));
  writeNulls(w, values, start, end, 'number', hasNulls);
  w.typed(arr);
  s.encoding = ColumnEncoding.NumberFloat;
  return seal(w, ColumnEncoding.NumberFloat, n, level);
}

function encodeBooleans(values: ArrayLike<Value>, start: number, end: number, level: number, s: ColumnBlockSummary): Buffer {
  const n = end - start;
  const hasNulls = s.nullCount > 0;
  const w = payloadWriter(Math.ceil(n / 4) + 16);
  w.u8(hasNulls ? 1 : 0);
  writeNulls(w, values, start, end, 'boolean', hasNulls);
  const bits = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (values[start + i] === true) bits[i] = 1;
  w.bytes(packBits(bits, 0, n));
  s.encoding = ColumnEncoding.Boolean;
  return seal(w, ColumnEncoding.Boolean, n, level);
}

/** Dictionary encoding, or null when the block has too many distinct strings for it to pay. */
function encodeDict(
  values: ArrayLike<Value>,
  start: number,
  end: number,
  level: number,
  s: ColumnBlockSummary,
  nonNull: number,
  sink: StringSink | undefined,
): Buffer | null {
  const n = end - start;
  const limit = Math.max(DICT_ALWAYS, nonNull >>> 1);
  const map = new Map<string, number>();
  const first = new Uint32Array(n); // first-seen code per row, 0 = null
  for (let i = 0; i < n; i++) {
    if (i === DICT_PROBE_ROWS && map.size * 4 > DICT_PROBE_ROWS * 3) return null;
    const v = values[start + i];
    if (typeof v !== 'string') continue;
    let code = map.get(v);
    if (code === undefined) {
      if (map.size >= limit) return null;
      code = map.size + 1;
      map.set(v, code);
    }
    first[i] = code;
  }
  // Sorted dictionary: code order is value order, so range filters can compare codes.
  const dict = [...map.keys()].sort();
  const remap = new Uint32Array(dict.length + 1);
  for (let j = 0; j < dict.length; j++) remap[map.get(dict[j]) as number] = j + 1;
  const width = dict.length < 0x100 ? 1 : dict.length < 0x10000 ? 2 : 4;
  const codes = width === 1 ? new Uint8Array(n) : width === 2 ? new Uint16Array(n) : new Uint32Array(n);
  for (let i = 0; i < n; i++) codes[i] = remap[first[i]];
  const w = payloadWriter(n * width + 64);
  w.u8(width);
  w.varint(dict.length);
  writeStringList(w, dict, 0, dict.length, false, sink);
  w.typed(codes);
  // UTF-8 bytes over the rows: each entry's size times its use.
  const uses = new Uint32Array(dict.length + 1);
  for (let i = 0; i < n; i++) uses[codes[i]]++;
  let bytes = 0;
  for (let j = 0; j < dict.length; j++) bytes += uses[j + 1] * Buffer.byteLength(dict[j], 'utf8');
  s.encoding = ColumnEncoding.Dict;
  s.dict = dict;
  s.minString = dict[0];
  s.maxString = dict[dict.length - 1];
  s.stringBytes = bytes;
  return seal(w, ColumnEncoding.Dict, n, level);
}

function encodePlain(
  values: ArrayLike<Value>,
  start: number,
  end: number,
  level: number,
  s: ColumnBlockSummary,
  sink: StringSink | undefined,
): Buffer {
  const n = end - start;
  let lo: string | null = null;
  let hi: string | null = null;
  let units = 0;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v !== 'string') continue;
    units += v.length;
    if (lo === null || v < lo) lo = v;
    if (hi === null || v > hi) hi = v;
  }
  s.minString = lo;
  s.maxString = hi;
  const w = payloadWriter(units + n * 3 + 64);
  s.stringBytes = writeStringList(w, values as ArrayLike<string | null | undefined>, start, end, true, sink);
  s.encoding = ColumnEncoding.String;
  return seal(w, ColumnEncoding.String, n, level);
}

function encodeMixed(values: ArrayLike<Value>, start: number, end: number, level: number, s: ColumnBlockSummary): Buffer {
  const n = end - start;
  const arr = new Array<FieldValue | null>(n);
  let lo: string | null = null;
  let hi: string | null = null;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const v = values[start + i];
    if (typeof v === 'string') {
      bytes += Buffer.byteLength(v, 'utf8');
      if (lo === null || v < lo) lo = v;
      if (hi === null || v > hi) hi = v;
      arr[i] = v;
    } else if (typeof v === 'boolean' || (typeof v === 'number' && v - v === 0)) arr[i] = v;
    else arr[i] = null;
  }
  s.minString = lo;
  s.maxString = hi;
  s.stringBytes = bytes;
  // JSON keeps each value's type and escapes lone surrogates; mixed blocks are rare.
  const json = Buffer.from(JSON.stringify(arr), 'utf8');
  s.encoding = ColumnEncoding.Mixed;
  return sealBlock(ColumnEncoding.Mixed, n, json, level);
}
