/**
 * A list of strings (some possibly null) as one payload section, built for fast decoding:
 *
 *   varint per row   length in UTF-16 code units (nullable lists: 0 = null, else length + 1)
 *   varint           chunk count
 *   per chunk        u32 rows, u8 text encoding, u32 bytes
 *   chunk texts      the chunk's strings concatenated
 *
 * Decoding turns each chunk into ONE JS string (latin1 fast path when it is all ASCII) and slices
 * rows out of it by length: no per-row UTF-8 decoding. Lengths count UTF-16 units, which UTF-8
 * round-trips exactly for well-formed text; a chunk holding a string that is not well-formed
 * (lone surrogates) is stored as UTF-16LE instead, so every string round-trips exactly.
 * Chunks keep each decoded string well below V8's maximum string length.
 *
 * Note: row strings are slices of the chunk string, so holding one keeps its chunk alive.
 */
import { ByteReader, ByteWriter } from './bytes';

const enum TextEncoding {
  Ascii = 0,
  Utf8 = 1,
  Utf16 = 2,
}

/** Max UTF-16 units per chunk (V8's string limit is ~2^29). */
const CHUNK_UNITS = 1 << 26;

type WellFormed = { isWellFormed(): boolean };

function isWellFormed(s: string): boolean {
  const w = s as unknown as Partial<WellFormed>;
  if (typeof w.isWellFormed === 'function') return w.isWellFormed();
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

/** Receives the UTF-8 bytes of each string as it is written (`bytes[start..end)` encodes `text`). */
export interface StringSink {
  addUtf8(text: string, bytes: Uint8Array, start: number, end: number): void;
}

/**
 * Writes `values[start..end)`; with `nullable`, null/undefined rows are kept as null. Each string
 * is encoded straight into the writer (no joined copy). Returns the strings' total UTF-8 bytes.
 */
export function writeStringList(
  w: ByteWriter,
  values: ArrayLike<string | null | undefined>,
  start: number,
  end: number,
  nullable: boolean,
  sink?: StringSink,
): number {
  // Lengths first, planning chunks of at most CHUNK_UNITS code units.
  const chunkRows: number[] = [];
  let units = 0;
  let rows = 0;
  for (let i = start; i < end; i++) {
    const v = values[i];
    if (typeof v !== 'string') {
      if (!nullable) throw new Error('string list: null in a non-nullable list');
      w.varint(0);
      rows++;
      continue;
    }
    w.varint(nullable ? v.length + 1 : v.length);
    if (units + v.length > CHUNK_UNITS && rows > 0) {
      chunkRows.push(rows);
      units = 0;
      rows = 0;
    }
    units += v.length;
    rows++;
  }
  chunkRows.push(rows);
  w.varint(chunkRows.length);
  // Fixed-size chunk descriptors (u32 rows, u8 encoding, u32 bytes), filled in once written.
  const desc = w.pos;
  w.ensure(9 * chunkRows.length);
  w.pos += 9 * chunkRows.length;
  let total = 0;
  let row = start;
  for (let c = 0; c < chunkRows.length; c++) {
    const textStart = w.pos;
    const rowEnd = row + chunkRows[c];
    let ascii = true;
    let wellFormed = true;
    for (let i = row; i < rowEnd; i++) {
      const v = values[i];
      if (typeof v !== 'string') continue;
      w.ensure(v.length * 3 + 1); // + 1: room for the sink's sentinel byte
      const n = w.buf.write(v, w.pos, 'utf8');
      if (n !== v.length) {
        ascii = false;
        if (wellFormed && !isWellFormed(v)) wellFormed = false;
      }
      if (sink !== undefined) sink.addUtf8(v, w.buf, w.pos, w.pos + n);
      w.pos += n;
      total += n;
    }
    let enc = ascii ? TextEncoding.Ascii : TextEncoding.Utf8;
    if (!wellFormed) {
      // Lone surrogates: UTF-8 would turn them into U+FFFD, UTF-16LE keeps them.
      enc = TextEncoding.Utf16;
      w.pos = textStart;
      for (let i = row; i < rowEnd; i++) {
        const v = values[i];
        if (typeof v !== 'string') continue;
        w.ensure(v.length * 2);
        w.pos += w.buf.write(v, w.pos, 'utf16le');
      }
    }
    const d = desc + 9 * c;
    w.buf.writeUInt32LE(chunkRows[c], d);
    w.buf[d + 4] = enc;
    w.buf.writeUInt32LE(w.pos - textStart, d + 5);
    row = rowEnd;
  }
  return total;
}

/** Reads `count` strings written by writeStringList with the same `nullable`. */
export function readStringList(payload: Buffer, r: ByteReader, count: number, nullable: boolean): (string | null)[] {
  const lens = new Int32Array(count);
  for (let i = 0; i < count; i++) lens[i] = nullable ? r.varint() - 1 : r.varint();
  const chunks = r.varint();
  const rowsOf: number[] = [];
  const encOf: number[] = [];
  const bytesOf: number[] = [];
  let total = 0;
  for (let c = 0; c < chunks; c++) {
    const d = r.take(9);
    rowsOf.push(payload.readUInt32LE(d.byteOffset - payload.byteOffset));
    encOf.push(d[4]);
    bytesOf.push(payload.readUInt32LE(d.byteOffset - payload.byteOffset + 5));
    total += rowsOf[c];
  }
  if (total !== count) throw new Error('string list: chunk rows do not add up');
  const out = new Array<string | null>(count);
  let row = 0;
  for (let c = 0; c < chunks; c++) {
    const enc = encOf[c];
    const start = r.pos;
    r.take(bytesOf[c]);
    const text = payload.toString(enc === TextEncoding.Ascii ? 'latin1' : enc === TextEncoding.Utf16 ? 'utf16le' : 'utf8', start, r.pos);
    let off = 0;
    const end = row + rowsOf[c];
    for (; row < end; row++) {
      const len = lens[row];
      if (len < 0) {
        out[row] = null;
        continue;
      }
      out[row] = text.slice(off, off + len);
      off += len;
    }
    if (off !== text.length) throw new Error('string list: lengths do not match the text');
  }
  return out;
}
