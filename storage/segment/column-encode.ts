/**
 * Encodes one column of one row block into a stored block (see block-envelope.ts), choosing the
 * encoding from the values: numbers, booleans, low-cardinality strings (dictionary), other
 * strings, mixed types, or all null. A value keeps its type: 200 stays a number, "200" a string.
 *
 * Non-finite numbers (NaN, +-Infinity) are stored as null: JSON, and so every ingest format and
 * API response, cannot carry them. -0 is kept (float64 path).
 */
import type { FieldValue } from '../core/event';
import { ColumnEncoding, sealBlock } from './block-envelope';
import { ByteWriter, packBits, planeWidth, writePlanes, zigzag } from './bytes';
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
  /** With `dict`: how many rows hold each entry (the column's top values count them). */
  dictCounts?: ArrayLike<number>;
  /** Total UTF-8 bytes of the block's string values. */
  stringBytes: number;
}

export interface EncodedColumnBlock {
  data: Buffer;
  summary: ColumnBlockSummary;
}

/** Dictionaries of up to this many entries are always used (and match MAX_HEADER_DICT). */
export const DICT_ALWAYS = 256;
/** After this many rows, a dictionary with more than 3/4 distinct values is given up early. */
export const DICT_PROBE_ROWS = 4096;
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
    // Deltas over their common divisor (1000 for millisecond times), as byte planes.
    const deltas = new Float64Array(Math.max(0, n - 1));
    let scale = 0;
    let max = 0;
    for (let i = start + 1; i < end; i++) {
      const delta = times[i] - times[i - 1];
      deltas[i - start - 1] = delta;
      if (delta > max) max = delta;
      if (scale !== 1) scale = gcd(scale, delta);
    }
    if (scale === 0) scale = 1;
    for (let i = 0; i < deltas.length; i++) deltas[i] /= scale;
    const width = planeWidth(max / scale);
    w.varint(scale);
    w.u8(width);
    writePlanes(w, deltas, deltas.length, width);
    return seal(w, ColumnEncoding.TimeScaled, n, level);
  }
  for (let i = start + 1; i < end; i++) w.varint(zigzag(times[i] - times[i - 1]));
  return seal(w, ColumnEncoding.TimeDelta, n, level);
}

/** Greatest common divisor of two non-negative integers below 2^32. */
function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** A block's summary before its values are looked at. */
export function emptySummary(): ColumnBlockSummary {
  return {
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
  const s = emptySummary();
  let nStr = 0;
  let nNum = 0;
  let nInt = 0;
  let nBool = 0;
  let min = Infinity;
  let max = -Infinity;
  let int32 = true;
  let negativeZero = false;
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
        if (v === 0 && 1 / v < 0) {
          int32 = false; // -0 keeps its sign on the float64 path
          negativeZero = true;
        }
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
    const packed = nInt === nNum && !negativeZero && max - min < 2 ** 53 && Number.isSafeInteger(min) && Number.isSafeInteger(max);
    data = packed
      ? encodePackedInts(values, start, end, level, s, nNum)
      : encodeNumbers(values, start, end, level, s, int32, nInt === nNum);
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

/**
 * Integers as NumberPacked: the non-null values only, minus the block's minimum, as byte planes
 * (a 0..20000 column with 40% nulls: 2 planes over 60% of the rows instead of int16 per row).
 */
function encodePackedInts(
  values: ArrayLike<Value>,
  start: number,
  end: number,
  level: number,
  s: ColumnBlockSummary,
  count: number,
): Buffer {
  const n = end - start;
  const hasNulls = s.nullCount > 0;
  const min = s.min ?? 0;
  const offsets = new Float64Array(count);
  let j = 0;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v === 'number' && v - v === 0) offsets[j++] = v - min;
  }
  const width = planeWidth((s.max ?? 0) - min);
  const w = payloadWriter(count * width + (n >>> 3) + 64);
  w.u8(hasNulls ? 1 : 0);
  writeNulls(w, values, start, end, 'number', hasNulls);
  w.typed(new Float64Array([min]));
  w.u8(width);
  writePlanes(w, offsets, count, width);
  s.encoding = ColumnEncoding.NumberPacked;
  return seal(w, ColumnEncoding.NumberPacked, n, level);
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
  return sealDict(
    dict,
    Array.from(dict, (entry) => Buffer.byteLength(entry, 'utf8')),
    first,
    remap,
    level,
    s,
    sink,
  );
}

/**
 * Writes a Dict block. `dict`: the block's distinct strings, sorted, and `dictBytes` their UTF-8
 * lengths; `first[i]`: row i's code in order of first sight (0 = null); `remap`: that code to its
 * place in `dict` + 1.
 */
export function sealDict(
  dict: string[],
  dictBytes: ArrayLike<number>,
  first: Uint32Array,
  remap: Uint32Array,
  level: number,
  s: ColumnBlockSummary,
  sink: StringSink | undefined,
): Buffer {
  const n = first.length;
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
  for (let j = 0; j < dict.length; j++) bytes += uses[j + 1] * dictBytes[j];
  s.encoding = ColumnEncoding.Dict;
  s.dict = dict;
  s.dictCounts = uses.subarray(1);
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
  const w = payloadWriter(units + (end - start) * 3 + 64);
  // Written as a string list first: that feeds the sink (the bloom) every row's UTF-8.
  s.stringBytes = writeStringList(w, values as ArrayLike<string | null | undefined>, start, end, true, sink);
  return sealStrings(w, values as ArrayLike<string | null | undefined>, start, end, level, s, true);
}

/**
 * Seals a block of strings (and nulls) as a template or hex block when every string fits, else as
 * a plain list. `listWritten`: `w` already holds the list (from payloadWriter, sized for it).
 */
export function sealStrings(
  w: ByteWriter,
  strings: ArrayLike<string | null | undefined>,
  start: number,
  end: number,
  level: number,
  s: ColumnBlockSummary,
  listWritten: boolean,
): Buffer {
  const n = end - start;
  if (typedStringCandidate(strings, start, end)) {
    w.pos = 0;
    if (writeStringTemplate(w, strings, start, end, s.nullCount > 0)) {
      s.encoding = ColumnEncoding.StringTemplate;
      return seal(w, ColumnEncoding.StringTemplate, n, level);
    }
    w.pos = 0;
    if (writeHexStrings(w, strings, start, end, s.nullCount > 0)) {
      s.encoding = ColumnEncoding.HexString;
      return seal(w, ColumnEncoding.HexString, n, level);
    }
    listWritten = false;
  }
  if (!listWritten) {
    w.pos = 0;
    writeStringList(w, strings, start, end, true);
  }
  s.encoding = ColumnEncoding.String;
  return seal(w, ColumnEncoding.String, n, level);
}

/** Strings longer than this (log lines, messages) are not tried as templates or hex. */
const MAX_TYPED_STRING = 64;
const MAX_TEMPLATE_HOLES = 16;
/** A digit run longer than this may not be a safe integer. */
const MAX_TEMPLATE_DIGITS = 15;

/** True when the block's first string is short: only then are the typed layouts tried. */
function typedStringCandidate(values: ArrayLike<string | null | undefined>, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v === 'string') return v.length > 0 && v.length <= MAX_TYPED_STRING;
  }
  return false;
}

/**
 * Writes a StringTemplate payload when every string is ASCII of one skeleton: the literal text
 * between maximal runs of decimal digits is the same in every row, and no run has a leading
 * zero (so the number gives the run back exactly). Returns false (leaving junk in `w`) if not.
 */
function writeStringTemplate(
  w: ByteWriter,
  values: ArrayLike<string | null | undefined>,
  start: number,
  end: number,
  hasNulls: boolean,
): boolean {
  let literals: string[] | null = null;
  let holes: Float64Array[] = [];
  let count = 0;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v !== 'string') continue;
    if (v.length > MAX_TYPED_STRING) return false;
    if (literals === null) {
      literals = skeletonOf(v);
      if (literals === null || literals.length < 2) return false;
      holes = Array.from({ length: literals.length - 1 }, () => new Float64Array(end - start));
    }
    // Match literal, number, literal, ... against the skeleton.
    let pos = 0;
    for (let h = 0; h < literals.length; h++) {
      const literal = literals[h];
      if (!v.startsWith(literal, pos)) return false;
      pos += literal.length;
      if (h === literals.length - 1) break;
      const from = pos;
      let number = 0;
      while (pos < v.length) {
        const c = v.charCodeAt(pos);
        if (c < 48 || c > 57) break;
        number = number * 10 + (c - 48);
        pos++;
      }
      const digits = pos - from;
      if (digits === 0 || digits > MAX_TEMPLATE_DIGITS || (digits > 1 && v.charCodeAt(from) === 48)) return false;
      holes[h][count] = number;
    }
    if (pos !== v.length) return false;
    count++;
  }
  if (literals === null) return false;
  w.u8(hasNulls ? 1 : 0);
  writeNulls(w, values, start, end, 'string', hasNulls);
  w.varint(holes.length);
  for (const literal of literals) {
    w.varint(literal.length);
    w.ensure(literal.length);
    w.pos += w.buf.write(literal, w.pos, 'latin1');
  }
  for (const hole of holes) {
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < count; i++) {
      if (hole[i] < min) min = hole[i];
      if (hole[i] > max) max = hole[i];
    }
    for (let i = 0; i < count; i++) hole[i] -= min;
    const width = planeWidth(max - min);
    w.varint(min);
    w.u8(width);
    writePlanes(w, hole, count, width);
  }
  return true;
}

/** The literal parts of an ASCII string around its digit runs, or null when it is not ASCII or has too many. */
function skeletonOf(v: string): string[] | null {
  const literals: string[] = [];
  let from = 0;
  let i = 0;
  while (i < v.length) {
    const c = v.charCodeAt(i);
    if (c >= 128) return null;
    if (c >= 48 && c <= 57) {
      literals.push(v.slice(from, i));
      if (literals.length > MAX_TEMPLATE_HOLES) return null;
      while (i < v.length && v.charCodeAt(i) >= 48 && v.charCodeAt(i) <= 57) i++;
      from = i;
    } else i++;
  }
  literals.push(v.slice(from));
  return literals;
}

/** Writes a HexString payload when every string is hex of one even length and one case; false if not. */
function writeHexStrings(
  w: ByteWriter,
  values: ArrayLike<string | null | undefined>,
  start: number,
  end: number,
  hasNulls: boolean,
): boolean {
  let length = -1;
  let lower = false;
  let upper = false;
  let count = 0;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v !== 'string') continue;
    if (length === -1) {
      length = v.length;
      if (length === 0 || length % 2 !== 0 || length > MAX_TYPED_STRING) return false;
    } else if (v.length !== length) return false;
    for (let k = 0; k < length; k++) {
      const c = v.charCodeAt(k);
      if (c >= 48 && c <= 57) continue;
      if (c >= 97 && c <= 102) lower = true;
      else if (c >= 65 && c <= 70) upper = true;
      else return false;
    }
    if (lower && upper) return false;
    count++;
  }
  if (count === 0) return false;
  w.u8((hasNulls ? 1 : 0) | (upper ? 2 : 0));
  writeNulls(w, values, start, end, 'string', hasNulls);
  w.varint(length);
  w.ensure((count * length) / 2);
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v === 'string') w.pos += w.buf.write(v, w.pos, 'hex');
  }
  return true;
}

/** True when a block of this encoding handed its strings to the sink (string-list based encodings). */
export function stringsWentToSink(encoding: ColumnEncoding): boolean {
  return (
    encoding === ColumnEncoding.Dict ||
    encoding === ColumnEncoding.String ||
    encoding === ColumnEncoding.StringTemplate ||
    encoding === ColumnEncoding.HexString
  );
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
