/**
 * Decodes one stored column block into a column vector (storage/column.ts). Pure: needs only
 * zstd, so it runs inside worker_threads. Typed sections are viewed in place when aligned.
 */
import { columnLength, valueAt, type Column, type NumberColumn } from '../column';
import type { FieldValue } from '../event';
import { ColumnEncoding, openBlock, openBlockTransient, readBlockHeader } from './block-envelope';
import { ByteReader, unpackBits, unzigzag } from './bytes';
import { openFramed } from './framed-block';
import type { LiteralByteSearch } from './literal-search';
import { matchedRows, readStringList, readStringListMatching, readStringListRows } from './string-list';

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

function readNulls(r: ByteReader, hasNulls: boolean, n: number): Uint8Array | null {
  return hasNulls ? unpackBits(r.take((n + 7) >>> 3), n) : null;
}

/** Decodes a block written by encodeColumnBlock or encodeTimeBlock. */
export function decodeColumnBlock(block: Buffer | Uint8Array): Column {
  if (readBlockHeader(block).encoding === ColumnEncoding.Framed) {
    const { rows, frames } = openFramed(block);
    return concatColumns(frames.map((frame) => decodeColumnBlock(frame.data)), rows);
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
      let t = readTyped(r, Float64Array, 1)[0];
      const deltas = readTyped(r, Uint32Array, n - 1);
      values[0] = t;
      for (let i = 1; i < n; i++) {
        t += deltas[i - 1];
        values[i] = t;
      }
      return { kind: 'time', values };
    }
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
      const ctor = width === 1 ? Uint8Array : width === 2 ? Uint16Array : width === 4 ? Uint32Array : null;
      if (ctor === null) throw new Error(`segment block: bad dictionary code width ${width}`);
      const codes = readTyped<Uint8Array | Uint16Array | Uint32Array>(r, ctor, n);
      for (let i = 0; i < n; i++) if (codes[i] > size) throw new Error('segment block: dictionary code out of range');
      return { kind: 'dict', dict, codes };
    }
    case ColumnEncoding.String:
      return { kind: 'string', values: readStringList(payload, r, n, true) };
    case ColumnEncoding.Mixed: {
      const values = JSON.parse(payload.toString('utf8')) as (FieldValue | null)[];
      if (!Array.isArray(values) || values.length !== n) throw new Error('segment block: bad mixed payload');
      return { kind: 'mixed', values };
    }
    default:
      throw new Error(`segment block: unknown encoding ${String(encoding)}`);
  }
}

/**
 * Decodes a text column block for a search of `literals` (see literal-search.ts): a plain string
 * block is searched as bytes and only the rows that may match become strings; `rows` lists them
 * (ascending) and the other rows must not be read. Other encodings decode whole (`rows` null: any
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
  const { values, rows, count } = readStringListMatching(payload, new ByteReader(payload), n, true, literals);
  return { column: { kind: 'string', values }, rows: rows.subarray(0, count) };
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
  const matched = matchedRows(n);
  const values: (FieldValue | null)[] = matched.values;
  let strings = true;
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
      if (value === null) continue;
      if (typeof value !== 'string') strings = false;
      values[base + row] = value;
      matched.rows[matched.count++] = base + row;
    }
  }
  const column: Column = strings ? { kind: 'string', values: values as (string | null)[] } : { kind: 'mixed', values };
  return { column, rows: matched.rows.subarray(0, matched.count) };
}

/**
 * Decodes a column block for the listed rows (ascending) only: a plain string block makes strings
 * of those rows alone (the others are null and must not be read); other encodings decode whole.
 */
export function decodeColumnBlockRows(block: Buffer | Uint8Array, rows: ArrayLike<number>): Column {
  const encoding = readBlockHeader(block).encoding;
  if (encoding === ColumnEncoding.Framed) return decodeFramesRows(block, rows);
  if (encoding !== ColumnEncoding.String) return decodeColumnBlock(block);
  // The strings are copied out: the payload can be scratch memory.
  const { rows: n, payload } = openBlockTransient(block);
  return { kind: 'string', values: readStringListRows(payload, new ByteReader(payload), n, true, rows) };
}

/** decodeColumnBlockRows of a framed block: frames without a listed row are not decoded. */
function decodeFramesRows(block: Uint8Array, rows: ArrayLike<number>): Column {
  const { rows: n, frames } = openFramed(block);
  const starts = frameStarts(frames);
  const values = new Array<FieldValue | null>(n).fill(null);
  let strings = true;
  let next = 0;
  for (let f = 0; f < frames.length; f++) {
    const end = starts[f] + frames[f].rows;
    const local: number[] = [];
    for (; next < rows.length && rows[next] < end; next++) local.push(rows[next] - starts[f]);
    if (local.length === 0) continue;
    const column = decodeColumnBlockRows(frames[f].data, local);
    for (const row of local) {
      const value = valueAt(column, row);
      if (value !== null && typeof value !== 'string') strings = false;
      values[starts[f] + row] = value;
    }
  }
  return strings ? { kind: 'string', values: values as (string | null)[] } : { kind: 'mixed', values };
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
