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
import { ListedRows } from './listed-rows';
import type { LiteralByteSearch } from './literal-search';
import type { StringInterner } from './string-intern';

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

/** The layout of a string list section: row lengths and the chunks' texts, located in the payload. */
export interface StringListLayout {
  /** Per row: length in UTF-16 code units, -1 for null. */
  lens: Int32Array;
  chunks: { rows: number; encoding: TextEncoding; start: number; end: number }[];
}

function readLayout(payload: Buffer, r: ByteReader, count: number, nullable: boolean): StringListLayout {
  const lens = new Int32Array(count);
  r.varintsInto(lens, count, nullable ? 1 : 0);
  const chunkCount = r.varint();
  const descriptors: { rows: number; encoding: TextEncoding; bytes: number }[] = [];
  let total = 0;
  for (let c = 0; c < chunkCount; c++) {
    const d = r.take(9);
    const at = d.byteOffset - payload.byteOffset;
    descriptors.push({ rows: payload.readUInt32LE(at), encoding: d[4] as TextEncoding, bytes: payload.readUInt32LE(at + 5) });
    total += descriptors[c].rows;
  }
  if (total !== count) throw new Error('string list: chunk rows do not add up');
  const chunks = descriptors.map(({ rows, encoding, bytes }) => {
    const start = r.pos;
    r.take(bytes);
    return { rows, encoding, start, end: r.pos };
  });
  return { lens, chunks };
}

function nodeEncoding(encoding: TextEncoding): BufferEncoding {
  return encoding === TextEncoding.Ascii ? 'latin1' : encoding === TextEncoding.Utf16 ? 'utf16le' : 'utf8';
}

/** Reads `count` strings written by writeStringList with the same `nullable`. */
export function readStringList(payload: Buffer, r: ByteReader, count: number, nullable: boolean): (string | null)[] {
  const { lens, chunks } = readLayout(payload, r, count, nullable);
  const out = new Array<string | null>(count);
  let row = 0;
  for (const chunk of chunks) {
    const text = payload.toString(nodeEncoding(chunk.encoding), chunk.start, chunk.end);
    let off = 0;
    const end = row + chunk.rows;
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

/**
 * Reads the strings of only the rows listed (ascending): the others read as null. For a late
 * column of a block where a filter kept few rows.
 */
export function readStringListRows(payload: Buffer, r: ByteReader, count: number, nullable: boolean, rows: ArrayLike<number>): ListedRows {
  const listed = new ListedRows(count, rows.length);
  stringsOfRows(payload, readLayout(payload, r, count, nullable), rows, (row, value) => listed.add(row, value));
  return listed;
}

/**
 * Moves `r` past a string list section and returns where its rows are, for stringsOfRows: a
 * reader that must see what follows the list first (a dictionary's codes) reads it once.
 */
export function openStringList(payload: Buffer, r: ByteReader, count: number, nullable: boolean): StringListLayout {
  return readLayout(payload, r, count, nullable);
}

/**
 * Hands `put` the string of each listed row (ascending) of an opened list that is not null. With
 * an `interner`, rows whose bytes it has seen get the string it made then (dictionary entries),
 * and `entry` is the row's entry id in it (-1: not interned).
 */
export function stringsOfRows(
  payload: Buffer,
  layout: StringListLayout,
  rows: ArrayLike<number>,
  put: (row: number, value: string, entry: number) => void,
  interner?: StringInterner,
): void {
  const { lens, chunks } = layout;
  let chunkRow = 0;
  let next = 0;
  for (const chunk of chunks) {
    const chunkEnd = chunkRow + chunk.rows;
    if (next < rows.length && rows[next] < chunkEnd) {
      const encoding = nodeEncoding(chunk.encoding);
      if (chunk.encoding === TextEncoding.Utf16) {
        const text = payload.toString(encoding, chunk.start, chunk.end);
        let off = 0;
        for (let row = chunkRow; row < chunkEnd; row++) {
          const len = Math.max(0, lens[row]);
          if (next < rows.length && rows[next] === row) {
            if (lens[row] >= 0) put(row, text.slice(off, off + len), -1);
            next++;
          }
          off += len;
        }
      } else {
        // Ends up to the chunk's last listed row only.
        let last = next;
        while (last + 1 < rows.length && rows[last + 1] < chunkEnd) last++;
        const ends = rowByteEnds(payload, lens, chunkRow, chunk, rows[last] - chunkRow + 1);
        for (; next < rows.length && rows[next] < chunkEnd; next++) {
          const i = rows[next] - chunkRow;
          if (lens[rows[next]] < 0) continue;
          const start = i === 0 ? chunk.start : ends[i - 1];
          if (interner === undefined) {
            put(rows[next], payload.toString(encoding, start, ends[i]), -1);
            continue;
          }
          const entry = interner.entryOf(payload, start, ends[i], encoding as 'latin1' | 'utf8');
          put(rows[next], entry === -1 ? payload.toString(encoding, start, ends[i]) : interner.stringAt(entry), entry);
        }
      }
    }
    chunkRow = chunkEnd;
  }
}

/**
 * Byte ends (payload offsets) of the first `rows` rows of one chunk, from their UTF-16 lengths: in
 * an ASCII chunk a unit is a byte; in a UTF-8 chunk each character is walked (4-byte sequences are
 * two units).
 */
function rowByteEnds(
  payload: Buffer,
  lens: Int32Array,
  firstRow: number,
  chunk: StringListLayout['chunks'][number],
  rows = chunk.rows,
): Uint32Array {
  const ends = new Uint32Array(rows);
  let pos = chunk.start;
  for (let i = 0; i < rows; i++) {
    let units = Math.max(0, lens[firstRow + i]);
    if (chunk.encoding === TextEncoding.Ascii) pos += units;
    else {
      while (units > 0) {
        const b = payload[pos];
        if (b < 0x80) pos += 1;
        else if (b < 0xe0) pos += 2;
        else if (b < 0xf0) pos += 3;
        else {
          pos += 4;
          units--;
        }
        units--;
      }
    }
    ends[i] = pos;
  }
  if (rows === chunk.rows ? pos !== chunk.end : pos > chunk.end) throw new Error('string list: lengths do not match the text');
  return ends;
}

/** A chunk where more than 1 row in DENSE_HITS has a hit (past DENSE_MIN_ROWS rows) is read whole instead. */
const DENSE_HITS = 16;
const DENSE_MIN_ROWS = 256;

/**
 * Reads the strings of only the rows whose text may hold every literal (see literal-search.ts):
 * the text is searched as bytes, and only those rows become JS strings, listed in `into` (the
 * candidates, ascending) at `offset` (the frames of a framed block share one). The first search is
 * run over whole chunks (pass the most selective first); the rest only inside its hit rows.
 * Chunks stored as UTF-16 (lone surrogates), and (unless `readCommonWhole` is false: each
 * candidate costs more than its string) chunks where the first literal is common, are not
 * searched: all their rows are candidates.
 */
export function readStringListMatching(
  payload: Buffer,
  r: ByteReader,
  count: number,
  nullable: boolean,
  searches: readonly LiteralByteSearch[],
  into: ListedRows = new ListedRows(count),
  offset = 0,
  readCommonWhole = true,
): ListedRows {
  const { lens, chunks } = readLayout(payload, r, count, nullable);
  const [first, ...rest] = searches;
  let chunkRow = 0;
  for (const chunk of chunks) {
    const encoding = nodeEncoding(chunk.encoding);
    const rowsBefore = into.count;
    let dense = chunk.encoding === TextEncoding.Utf16 || first === undefined;
    if (!dense && first !== undefined) {
      // ASCII ends cost one add per row and check the lengths; UTF-8 ones are walked only on a hit.
      let ends: Uint32Array | null = chunk.encoding === TextEncoding.Ascii ? rowByteEnds(payload, lens, chunkRow, chunk) : null;
      let i = 0;
      let hits = 0;
      let at = first.find(payload, chunk.start, chunk.end);
      while (at !== -1) {
        ends ??= rowByteEnds(payload, lens, chunkRow, chunk);
        while (ends[i] <= at) i++;
        if (readCommonWhole && ++hits * DENSE_HITS > i && i >= DENSE_MIN_ROWS) {
          dense = true;
          break;
        }
        const start = i === 0 ? chunk.start : ends[i - 1];
        const end = ends[i];
        if (at + first.length > end || !first.bounded(payload, at, start, end)) {
          at = first.find(payload, at + 1, chunk.end);
          continue;
        }
        if (rest.every((search) => search.mayMatch(payload, start, end)))
          into.add(offset + chunkRow + i, payload.toString(encoding, start, end));
        at = first.find(payload, end, chunk.end);
      }
    }
    if (dense) {
      // Most rows hit (a common term): one string for the chunk, sliced, is cheaper than a search.
      into.truncate(rowsBefore);
      const text = payload.toString(encoding, chunk.start, chunk.end);
      let off = 0;
      for (let row = chunkRow; row < chunkRow + chunk.rows; row++) {
        if (lens[row] < 0) continue;
        into.add(offset + row, text.slice(off, off + lens[row]));
        off += lens[row];
      }
    }
    chunkRow += chunk.rows;
  }
  return into;
}
