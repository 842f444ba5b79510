/**
 * Decodes one stored column block into a column vector (storage/core/column.ts). Pure: needs only
 * zstd, so it runs inside worker_threads. Typed sections are viewed in place when aligned.
 */
import { columnLength, valueAt, type Column, type NumberColumn } from '../core/column';
import type { FieldValue } from '../core/event';
import { ColumnEncoding, openBlock, openBlockTransient, readBlockHeader } from './block-envelope';
import { ByteReader, planeValueAt, readPlanes, unpackBits, unzigzag } from './bytes';
import { openFramed } from './framed-block';
import { ListedRows } from './listed-rows';
import type { LiteralByteSearch } from './literal-search';
import { denseIndexes, nonNullCountOfBits } from './null-bits';
import { dictionaryInterner } from './string-intern';
import {
  openStringList,
  readStringList,
  readStringListMatching,
  readStringListRows,
  stringsOfRows,
  type StringListLayout,
} from './string-list';

type TypedCtor<T> = {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  new (length: number): T;
  BYTES_PER_ELEMENT: number;
};

/** `n` elements at the reader's position (after aligning), viewed in place when aligned. */
function readTyped<T extends ArrayBufferView>(r: ByteReader, ctor: TypedCtor<T>, n: number): T {
  r.align(ctor.BYTES_PER_ELEMENT);
  const bytes = r.take(n * ctor.BYTES_PER_ELEMENT);
  if (bytes.byteOffset % ctor.BYTES_PER_ELEMENT === 0) return new ctor(bytes.buffer, bytes.byteOffset, n);
  const out = new ctor(n);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** The null bitmap, one byte per row (null without one). */
function readNulls(r: ByteReader, hasNulls: boolean, n: number): Uint8Array | null {
  return unpackNulls(readNullBits(r, hasNulls, n), n);
}

/** The null bitmap as stored (null-bits.ts), viewed in place. */
function readNullBits(r: ByteReader, hasNulls: boolean, n: number): Uint8Array | null {
  return hasNulls ? r.take((n + 7) >>> 3) : null;
}

function unpackNulls(bits: Uint8Array | null, n: number): Uint8Array | null {
  return bits === null ? null : unpackBits(bits, n);
}

/** Times from the first one and the deltas between neighbours: `values[i] = first + deltas[0..i)`. */
function accumulateDeltas(first: number, deltas: ArrayLike<number>, values: Float64Array): void {
  let t = first;
  values[0] = t;
  for (let i = 1; i < values.length; i++) {
    t += deltas[i - 1];
    values[i] = t;
  }
}

/** Decodes a block written by encodeColumnBlock or encodeTimeBlock. */
export function decodeColumnBlock(block: Buffer | Uint8Array): Column {
  if (readBlockHeader(block).encoding === ColumnEncoding.Framed) {
    const { rows, frames } = openFramed(block);
    return concatColumns(
      frames.map((frame) => decodeColumnBlock(frame.data)),
      rows,
    );
  }
  const { encoding, rows: n, payload } = openBlock(block);
  return decodeOpened(encoding, n, payload);
}

/** One column of the frames' columns in order: strings when all hold strings (or nulls), else mixed values. */
function concatColumns(columns: readonly Column[], rows: number): Column {
  if (columns.length === 1) return columns[0];
  const values: (FieldValue | null)[] = [];
  let strings = true;
  for (const column of columns) {
    if (column.kind === 'string') {
      for (const value of column.values) values.push(value);
      continue;
    }
    const length = columnLength(column);
    for (let row = 0; row < length; row++) {
      const value = valueAt(column, row);
      if (value !== null && typeof value !== 'string') strings = false;
      values.push(value);
    }
  }
  if (values.length !== rows) throw new Error('segment block: frames do not add up');
  return strings ? { kind: 'string', values: values as (string | null)[] } : { kind: 'mixed', values };
}

/** The first row of each frame. */
function frameStarts(frames: readonly { rows: number }[]): number[] {
  const starts: number[] = [];
  let row = 0;
  for (const frame of frames) {
    starts.push(row);
    row += frame.rows;
  }
  return starts;
}

function decodeOpened(encoding: ColumnEncoding, n: number, payload: Buffer): Column {
  const r = new ByteReader(payload);
  switch (encoding) {
    case ColumnEncoding.AllNull:
      return { kind: 'const', value: null, length: n };
    case ColumnEncoding.TimeDelta:
      return { kind: 'time', values: decodeTimeDeltas(payload, r, n) };
    case ColumnEncoding.TimeDelta32: {
      const values = new Float64Array(n);
      if (n === 0) return { kind: 'time', values };
      const first = readTyped(r, Float64Array, 1)[0];
      accumulateDeltas(first, readTyped(r, Uint32Array, n - 1), values);
      return { kind: 'time', values };
    }
    case ColumnEncoding.TimeScaled: {
      const values = new Float64Array(n);
      if (n === 0) return { kind: 'time', values };
      const first = readTyped(r, Float64Array, 1)[0];
      const scale = r.varint();
      const width = r.u8();
      const deltas = new Float64Array(n - 1);
      readPlanes(r, n - 1, width, deltas, 0, scale);
      accumulateDeltas(first, deltas, values);
      return { kind: 'time', values };
    }
    case ColumnEncoding.NumberPacked: {
      const bits = readNullBits(r, (r.u8() & 1) !== 0, n);
      const nulls = unpackNulls(bits, n);
      const min = readTyped(r, Float64Array, 1)[0];
      const width = r.u8();
      const count = nonNullCountOfBits(bits, n);
      const values = new Float64Array(n);
      if (nulls === null) readPlanes(r, n, width, values, min);
      else {
        const dense = new Float64Array(count);
        readPlanes(r, count, width, dense, min);
        scatter(dense, nulls, values);
      }
      return { kind: 'number', values, nulls, allIntegers: true };
    }
    case ColumnEncoding.StringTemplate:
      return decodeTemplate(r, n);
    case ColumnEncoding.HexString:
      return decodeHex(payload, r, n);
    case ColumnEncoding.TimeFloat:
      return { kind: 'time', values: readTyped(r, Float64Array, n) };
    case ColumnEncoding.NumberInt:
      return decodeInts(r, n);
    case ColumnEncoding.NumberFloat: {
      const flags = r.u8();
      const nulls = readNulls(r, (flags & 1) !== 0, n);
      return { kind: 'number', values: readTyped(r, Float64Array, n), nulls, allIntegers: (flags & 2) !== 0 };
    }
    case ColumnEncoding.Boolean: {
      const nulls = readNulls(r, (r.u8() & 1) !== 0, n);
      return { kind: 'boolean', values: unpackBits(r.take((n + 7) >>> 3), n), nulls };
    }
    case ColumnEncoding.Dict: {
      const width = r.u8();
      const size = r.varint();
      const dict = readStringList(payload, r, size, false) as string[];
      dict.unshift(''); // code 0 is null
      return { kind: 'dict', dict, codes: readDictCodes(r, width, size, n) };
    }
    case ColumnEncoding.String:
      return { kind: 'string', values: readStringList(payload, r, n, true) };
    case ColumnEncoding.Mixed: {
      const values = JSON.parse(payload.toString('utf8')) as (FieldValue | null)[];
      if (!Array.isArray(values) || values.length !== n) throw new Error('segment block: bad mixed payload');
      return { kind: 'mixed', values };
    }
    case ColumnEncoding.RawRefs:
      throw new Error('segment block: a _raw with field references is decoded with its fields (row-block.ts)');
    default:
      throw new Error(`segment block: unknown encoding ${String(encoding)}`);
  }
}

/**
 * Decodes a text column block for a search of `literals` (see literal-search.ts): a plain string
 * block is searched as bytes and only the rows that may match become strings; `rows` lists them
 * (ascending) and the other rows read as null. Other encodings decode whole (`rows` null: any
 * row may match).
 */
export function decodeColumnBlockMatching(
  block: Buffer | Uint8Array,
  literals: readonly LiteralByteSearch[],
  frames: readonly number[] | null = null,
): { column: Column; rows: Uint32Array | null } {
  const encoding = readBlockHeader(block).encoding;
  if (encoding === ColumnEncoding.Framed) return decodeFramesMatching(block, literals, frames);
  if (encoding !== ColumnEncoding.String || literals.length === 0) return { column: decodeColumnBlock(block), rows: null };
  // The matching reader copies out the strings it keeps: the payload can be scratch memory.
  const { rows: n, payload } = openBlockTransient(block);
  const matched = readStringListMatching(payload, new ByteReader(payload), n, true, literals);
  return { column: matched.column(), rows: matched.listed() };
}

/**
 * decodeColumnBlockMatching of a framed block: only the listed frames (null: all) are decoded, and
 * a frame's rows are candidates when they may match (every non-null row without literals).
 */
function decodeFramesMatching(
  block: Uint8Array,
  literals: readonly LiteralByteSearch[],
  wanted: readonly number[] | null,
): { column: Column; rows: Uint32Array | null } {
  const { rows: n, frames } = openFramed(block);
  const starts = frameStarts(frames);
  const matched = new ListedRows(n);
  for (let f = 0; f < frames.length; f++) {
    if (wanted !== null && !wanted.includes(f)) continue;
    const base = starts[f];
    if (literals.length > 0 && readBlockHeader(frames[f].data).encoding === ColumnEncoding.String) {
      // The common case: a plain frame searched straight into the block's rows.
      const { rows: frameRows, payload } = openBlockTransient(frames[f].data);
      readStringListMatching(payload, new ByteReader(payload), frameRows, true, literals, matched, base);
      continue;
    }
    const column = decodeColumnBlock(frames[f].data);
    for (let row = 0; row < columnLength(column); row++) {
      const value = valueAt(column, row);
      if (value !== null) matched.add(base + row, value);
    }
  }
  return { column: matched.column(), rows: matched.listed() };
}

/**
 * Decodes a column block for the listed rows (ascending) only: string blocks make strings of
 * those rows alone (the others read as null, see listed-rows.ts), and so do dictionaries (the
 * others must not be read) and packed integers (the others read as 0); other encodings decode whole.
 */
export function decodeColumnBlockRows(block: Buffer | Uint8Array, rows: ArrayLike<number>): Column {
  const encoding = readBlockHeader(block).encoding;
  if (encoding === ColumnEncoding.Framed) return decodeFramesRows(block, rows);
  if (encoding === ColumnEncoding.Dict) return decodeDictRows(block, rows);
  if (encoding === ColumnEncoding.NumberPacked) return decodePackedRows(block, rows);
  if (encoding === ColumnEncoding.StringTemplate || encoding === ColumnEncoding.HexString) {
    // The strings of the listed rows are built from (copied out of) the scratch payload.
    const { rows: n, payload } = openBlockTransient(block);
    const r = new ByteReader(payload);
    return encoding === ColumnEncoding.StringTemplate ? decodeTemplate(r, n, rows) : decodeHex(payload, r, n, rows);
  }
  if (encoding !== ColumnEncoding.String) return decodeColumnBlock(block);
  // The strings are copied out: the payload can be scratch memory.
  const { rows: n, payload } = openBlockTransient(block);
  return readStringListRows(payload, new ByteReader(payload), n, true, rows).column();
}

/**
 * The `n` codes of a dictionary block (`width` bytes each, at most `size`), viewed in place when
 * aligned. Every code is checked, or only those of `checked` rows when the caller reads no other.
 */
function readDictCodes(
  r: ByteReader,
  width: number,
  size: number,
  n: number,
  checked?: ArrayLike<number>,
): Uint8Array | Uint16Array | Uint32Array {
  const ctor = width === 1 ? Uint8Array : width === 2 ? Uint16Array : width === 4 ? Uint32Array : null;
  if (ctor === null) throw new Error(`segment block: bad dictionary code width ${width}`);
  const codes = readTyped<Uint8Array | Uint16Array | Uint32Array>(r, ctor, n);
  const outOfRange = (): never => {
    throw new Error('segment block: dictionary code out of range');
  };
  if (checked === undefined) {
    for (let i = 0; i < n; i++) if (codes[i] > size) outOfRange();
  } else {
    for (let i = 0; i < checked.length; i++) if (!(codes[checked[i]] <= size)) outOfRange();
  }
  return codes;
}

/** A packed integer block opened into scratch memory (valid until the next transient open): `value_i = min + plane value i` over the non-null rows. */
export interface PackedInts {
  rows: number;
  /** The null bitmap as stored (null-bits.ts). */
  nullBits: Uint8Array | null;
  min: number;
  width: number;
  /** Non-null rows: the values in `planes`. */
  count: number;
  planes: Uint8Array;
  /** The payload when it is a cached one (payload-cache.ts), to key what is derived from it; else null. */
  cached: Buffer | null;
}

/** Opens a NumberPacked block without materializing its values (null for any other encoding). */
export function openPackedTransient(block: Uint8Array): PackedInts | null {
  if (readBlockHeader(block).encoding !== ColumnEncoding.NumberPacked) return null;
  const { rows, payload, cached } = openBlockTransient(block);
  const r = new ByteReader(payload);
  const nullBits = readNullBits(r, (r.u8() & 1) !== 0, rows);
  const min = readTyped(r, Float64Array, 1)[0];
  const width = r.u8();
  const count = nonNullCountOfBits(nullBits, rows);
  return { rows, nullBits, min, width, count, planes: r.take(count * width), cached: cached ? payload : null };
}

/** decodeColumnBlockRows of a packed integer block: values and nulls at the listed rows only (others 0, not to be read). */
function decodePackedRows(block: Uint8Array, rows: ArrayLike<number>): Column {
  const { rows: n, nullBits, min, width, count, planes } = openPackedTransient(block) as PackedInts;
  const values = new Float64Array(n);
  const nulls = nullBits === null ? null : new Uint8Array(n);
  const dense = denseIndexes(nullBits, rows);
  for (let k = 0; k < rows.length; k++) {
    if (dense[k] >= 0) values[rows[k]] = min + planeValueAt(planes, count, width, dense[k]);
    else if (nulls !== null) nulls[rows[k]] = 1;
  }
  return { kind: 'number', values, nulls, allIntegers: true };
}

/** A stringsOfRows receiver for dictionary entries: entry e is code e + 1, in `dict` and its interner ids in `ids`. */
function intoDictionary(dict: string[], ids: Int32Array): (entry: number, value: string, id: number) => void {
  return (entry, value, id) => {
    dict[entry + 1] = value;
    ids[entry + 1] = id;
  };
}

/**
 * decodeColumnBlockRows of a dictionary block: all codes, but strings only for the entries the
 * listed rows use (the others read as '' and must not be read). A high-cardinality dictionary
 * (paths, user ids) holds about as many entries as the block has rows; a selective filter needs few.
 */
function decodeDictRows(block: Uint8Array, rows: ArrayLike<number>): Column {
  // Scratch payload: the strings and the codes are copied out of it.
  const { rows: n, payload, cached } = openBlockTransient(block);
  if (cached) {
    const column = decodeCachedDictRows(payload, n, rows);
    if (column !== null) return column;
  }
  const r = new ByteReader(payload);
  const width = r.u8();
  const size = r.varint();
  const list = openStringList(payload, r, size, false);
  // Only the listed rows may be read, so only their codes need checking.
  const codes = readDictCodes(r, width, size, n, rows).slice();
  const used = new Uint8Array(size + 1);
  for (let i = 0; i < rows.length; i++) used[codes[rows[i]]] = 1;
  const entries: number[] = [];
  for (let code = 1; code <= size; code++) if (used[code] === 1) entries.push(code - 1);
  // Entry e is code e + 1; code 0 (null) and the unused entries stay ''.
  const dict = new Array<string>(size + 1).fill('');
  const ids = new Int32Array(size + 1).fill(-1);
  const epoch = dictionaryInterner.epoch;
  stringsOfRows(payload, list, entries, intoDictionary(dict, ids), dictionaryInterner);
  // The table started over midway: the ids from before name other strings now.
  if (dictionaryInterner.epoch !== epoch) return { kind: 'dict', dict, codes };
  return { kind: 'dict', dict, codes, interned: { ids, epoch } };
}

/**
 * What decodeDictRows learns of a cached dictionary payload, kept with it (and dropped with it):
 * the checked codes, the entries' layout, and the entries interned so far with their strings.
 */
interface CachedDict {
  size: number;
  codes: Uint8Array | Uint16Array | Uint32Array;
  layout: StringListLayout;
  /** Interner epoch of `ids` and `dict`. */
  epoch: number;
  /** Per code: 1 once its string is in `dict`. */
  decoded: Uint8Array;
  /** Per code: the entry id in the interner (-1: not decoded, or not interned). */
  ids: Int32Array;
  /** Per code: the entry's string once decoded, else ''. */
  dict: string[];
}

const cachedDicts = new WeakMap<Buffer, CachedDict>();

/**
 * decodeDictRows over a cached payload: a query after the first reads only the codes, and makes
 * no string and no table for entries met before. Null when the interner started over midway
 * (the caller decodes as usual).
 */
function decodeCachedDictRows(payload: Buffer, n: number, rows: ArrayLike<number>): Column | null {
  let state = cachedDicts.get(payload);
  if (state === undefined) {
    const r = new ByteReader(payload);
    const width = r.u8();
    const size = r.varint();
    const layout = openStringList(payload, r, size, false);
    const codes = readDictCodes(r, width, size, n);
    state = { size, codes, layout, epoch: -1, decoded: new Uint8Array(0), ids: new Int32Array(0), dict: [] };
    cachedDicts.set(payload, state);
  }
  const interner = dictionaryInterner;
  if (state.epoch !== interner.epoch) {
    // New arrays: a column handed out earlier keeps the ids of its own epoch.
    state.epoch = interner.epoch;
    state.decoded = new Uint8Array(state.size + 1);
    state.ids = new Int32Array(state.size + 1).fill(-1);
    state.dict = new Array<string>(state.size + 1).fill('');
  }
  const { codes, decoded, ids, dict } = state;
  const missing: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const code = codes[rows[i]];
    if (decoded[code] === 0) {
      decoded[code] = 1;
      if (code !== 0) missing.push(code - 1);
    }
  }
  if (missing.length > 0) {
    missing.sort((a, b) => a - b);
    const epoch = interner.epoch;
    stringsOfRows(payload, state.layout, missing, intoDictionary(dict, ids), interner);
    if (interner.epoch !== epoch) {
      state.epoch = -1;
      return null;
    }
  }
  return { kind: 'dict', dict, codes, interned: { ids, epoch: state.epoch } };
}

/** decodeColumnBlockRows of a framed block: frames without a listed row are not decoded. */
function decodeFramesRows(block: Uint8Array, rows: ArrayLike<number>): Column {
  const { rows: n, frames } = openFramed(block);
  const starts = frameStarts(frames);
  const listed = new ListedRows(n, rows.length);
  let next = 0;
  for (let f = 0; f < frames.length; f++) {
    const end = starts[f] + frames[f].rows;
    const local: number[] = [];
    for (; next < rows.length && rows[next] < end; next++) local.push(rows[next] - starts[f]);
    if (local.length === 0) continue;
    const column = decodeColumnBlockRows(frames[f].data, local);
    for (const row of local) listed.add(starts[f] + row, valueAt(column, row));
  }
  return listed.column();
}

function decodeTimeDeltas(payload: Buffer, r: ByteReader, n: number): Float64Array {
  const out = new Float64Array(n);
  if (n === 0) return out;
  out[0] = readTyped(r, Float64Array, 1)[0];
  const buf = payload;
  let pos = r.pos;
  let t = out[0];
  for (let i = 1; i < n; i++) {
    // Inline varint: one byte is the common case (sorted times microseconds apart).
    let b = buf[pos++];
    let z = b & 127;
    // Multiply by a running power of 128: `2 ** shift` in this loop costs ~10x the whole decode.
    let scale = 128;
    while (b > 127) {
      if (pos >= buf.length) throw new Error('segment block truncated');
      b = buf[pos++];
      z += (b & 127) * scale;
      scale *= 128;
    }
    t += unzigzag(z);
    out[i] = t;
  }
  if (pos > buf.length) throw new Error('segment block truncated');
  r.pos = pos;
  return out;
}

function decodeInts(r: ByteReader, n: number): NumberColumn {
  const hasNulls = (r.u8() & 1) !== 0;
  const width = r.u8();
  const nulls = readNulls(r, hasNulls, n);
  const ctor = width === 1 ? Int8Array : width === 2 ? Int16Array : width === 4 ? Int32Array : null;
  if (ctor === null) throw new Error(`segment block: bad integer width ${width}`);
  const ints = readTyped<Int8Array | Int16Array | Int32Array>(r, ctor, n);
  const values = new Float64Array(n);
  values.set(ints); // a native widening copy: ~1.7x a JS loop over the three typed-array kinds
  return { kind: 'number', values, nulls, allIntegers: true };
}

/** Spreads the non-null rows' values over their rows (null rows stay 0). */
function scatter(dense: Float64Array, nulls: Uint8Array, out: Float64Array): void {
  let j = 0;
  for (let i = 0; i < out.length; i++) if (nulls[i] === 0) out[i] = dense[j++];
  if (j !== dense.length) throw new Error('segment block: null bitmap does not match the values');
}

/**
 * A StringTemplate block: the text of all rows is built as bytes, then sliced from one string.
 * With `rows` (ascending), only those rows get strings (the others read as null).
 */
function decodeTemplate(r: ByteReader, n: number, rows?: ArrayLike<number>): Column {
  const bits = readNullBits(r, (r.u8() & 1) !== 0, n);
  const holes = r.varint();
  const literals: Uint8Array[] = [];
  let literalBytes = 0;
  for (let h = 0; h <= holes; h++) {
    literals.push(r.take(r.varint()));
    literalBytes += literals[h].length;
  }
  const count = nonNullCountOfBits(bits, n);
  if (rows !== undefined) {
    // The listed rows' numbers only, read straight from their planes.
    const holePlanes = Array.from({ length: holes }, () => {
      const min = r.varint();
      const width = r.u8();
      return { min, width, planes: r.take(count * width) };
    });
    const texts = literals.map((literal) => Buffer.from(literal.buffer, literal.byteOffset, literal.length).toString('latin1'));
    const out = new ListedRows(n, rows.length);
    const dense = denseIndexes(bits, rows);
    for (let k = 0; k < rows.length; k++) {
      const j = dense[k];
      if (j < 0) continue;
      let value = texts[0];
      for (let h = 0; h < holes; h++) {
        const { min, width, planes } = holePlanes[h];
        value += String(min + planeValueAt(planes, count, width, j)) + texts[h + 1];
      }
      out.add(rows[k], value);
    }
    return out.column();
  }
  const numbers: Float64Array[] = [];
  for (let h = 0; h < holes; h++) {
    const min = r.varint();
    const width = r.u8();
    const values = new Float64Array(count);
    readPlanes(r, count, width, values, min);
    numbers.push(values);
  }
  const text = Buffer.allocUnsafe(count * (literalBytes + 16 * holes));
  const ends = new Uint32Array(count);
  let pos = 0;
  for (let i = 0; i < count; i++) {
    for (let h = 0; h <= holes; h++) {
      const literal = literals[h];
      for (let k = 0; k < literal.length; k++) text[pos++] = literal[k];
      if (h === holes) break;
      let v = numbers[h][i];
      // Decimal digits, written backwards then in place.
      const from = pos;
      while (v >= 2147483648) {
        const q = Math.floor(v / 10);
        text[pos++] = 48 + (v - q * 10);
        v = q;
      }
      let small = v | 0;
      do {
        const q = (small / 10) | 0;
        text[pos++] = 48 + small - q * 10;
        small = q;
      } while (small > 0);
      for (let a = from, b = pos - 1; a < b; a++, b--) {
        const t = text[a];
        text[a] = text[b];
        text[b] = t;
      }
    }
    ends[i] = pos;
  }
  return { kind: 'string', values: sliceRows(text.toString('latin1', 0, pos), ends, unpackNulls(bits, n), n) };
}

/** A HexString block; with `rows` (ascending), only those rows get strings (the others read as null). */
function decodeHex(payload: Buffer, r: ByteReader, n: number, rows?: ArrayLike<number>): Column {
  const flags = r.u8();
  const bits = readNullBits(r, (flags & 1) !== 0, n);
  const length = r.varint();
  const count = nonNullCountOfBits(bits, n);
  const bytes = r.take((count * length) / 2);
  if (rows !== undefined) {
    const out = new ListedRows(n, rows.length);
    const dense = denseIndexes(bits, rows);
    const start = bytes.byteOffset - payload.byteOffset;
    for (let k = 0; k < rows.length; k++) {
      const j = dense[k];
      if (j < 0) continue;
      const value = payload.toString('hex', start + (j * length) / 2, start + ((j + 1) * length) / 2);
      out.add(rows[k], (flags & 2) !== 0 ? value.toUpperCase() : value);
    }
    return out.column();
  }
  let text = payload.toString('hex', bytes.byteOffset - payload.byteOffset, bytes.byteOffset - payload.byteOffset + bytes.length);
  if ((flags & 2) !== 0) text = text.toUpperCase();
  const ends = new Uint32Array(count);
  for (let i = 0; i < count; i++) ends[i] = (i + 1) * length;
  return { kind: 'string', values: sliceRows(text, ends, unpackNulls(bits, n), n) };
}

/** Cuts the non-null rows out of one string (`ends[j]`: end of the j-th non-null row). */
function sliceRows(text: string, ends: Uint32Array, nulls: Uint8Array | null, n: number): (string | null)[] {
  const out = new Array<string | null>(n);
  let j = 0;
  let from = 0;
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[i] !== 0) {
      out[i] = null;
      continue;
    }
    if (j >= ends.length) throw new Error('segment block: null bitmap does not match the values');
    out[i] = text.slice(from, ends[j]);
    from = ends[j++];
  }
  return out;
}
