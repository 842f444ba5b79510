/**
 * `_raw` blocks written straight from ASCII bytes. Buffered events keep `_raw` as packed UTF-8
 * (event-chunk.ts); when a flush's text is all ASCII, a plain string block (string-list.ts layout,
 * where a row's UTF-16 length equals its byte length) is copied from those bytes and the bloom
 * tokens are scanned from them, so the codec never builds a JS string per row. Blocks that would
 * rather be dictionaries (repeated lines) are left to the string path.
 */
import { ColumnEncoding } from './block-envelope';
import { payloadWriter, seal, type ColumnBlockSummary } from './column-encode';

/** ASCII strings in one buffer: row i is `bytes[i === 0 ? 0 : ends[i - 1], ends[i])`. */
export interface AsciiText {
  bytes: Uint8Array;
  ends: Uint32Array;
}

/** Receives each row's bytes as they are written (the bloom's token scan). */
export type AsciiSink = (bytes: Uint8Array, start: number, end: number) => void;

/** Blocks of at most this many rows are always dictionaries (column-encode.ts DICT_ALWAYS). */
const DICT_ALWAYS = 256;
/** Rows sampled to decide between a plain block and a dictionary. */
const SAMPLE_ROWS = 512;
/** The sample's table: 1,024 slots, at most half full. */
const SAMPLE_SLOT_BITS = 10;
/** Max bytes of text in one string-list chunk (string-list.ts CHUNK_UNITS). */
const CHUNK_BYTES = 1 << 26;

export function rowText(text: AsciiText, row: number): string {
  const start = row === 0 ? 0 : text.ends[row - 1];
  return Buffer.from(text.bytes.buffer, text.bytes.byteOffset + start, text.ends[row] - start).toString('latin1');
}

/** Bytes hashed at each end of a sampled row: equal rows hash equal, and most lines differ early or late. */
const SAMPLE_HASH_BYTES = 32;

/** A hash of a row's length and its first and last bytes. */
function rowHash(bytes: Uint8Array, ends: Uint32Array, row: number): number {
  const start = row === 0 ? 0 : ends[row - 1];
  const end = ends[row];
  let h = Math.imul(0x811c9dc5 ^ (end - start), 0x01000193);
  const head = Math.min(end, start + SAMPLE_HASH_BYTES);
  for (let i = start; i < head; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  for (let i = Math.max(head, end - SAMPLE_HASH_BYTES); i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h;
}

/**
 * True when a sample of the rows is mostly distinct (else a dictionary may pay). Rows are told
 * apart by bytes: a table of sampled rows keyed by rowHash, compared in full on a hash match.
 */
function mostlyDistinct(text: AsciiText, rowAt: (i: number) => number, n: number): boolean {
  const sample = Math.min(n, SAMPLE_ROWS);
  const { bytes, ends } = text;
  const slots = new Int32Array(1 << SAMPLE_SLOT_BITS).fill(-1);
  const mask = slots.length - 1;
  const step = n / sample;
  let distinct = 0;
  for (let k = 0; k < sample; k++) {
    const row = rowAt(Math.floor(k * step));
    for (let slot = Math.imul(rowHash(bytes, ends, row), 0x9e3779b1) >>> (32 - SAMPLE_SLOT_BITS); ; slot = (slot + 1) & mask) {
      const held = slots[slot];
      if (held === -1) {
        slots[slot] = row;
        distinct++;
        break;
      }
      if (compareRows(bytes, ends, held, row) === 0) break;
    }
  }
  return distinct * 4 > sample * 3;
}

/** Byte-wise comparison of two rows (ASCII: the same order as comparing the JS strings). */
function compareRows(bytes: Uint8Array, ends: Uint32Array, a: number, b: number): number {
  let i = a === 0 ? 0 : ends[a - 1];
  let j = b === 0 ? 0 : ends[b - 1];
  const endA = ends[a];
  const endB = ends[b];
  while (i < endA && j < endB) {
    const d = bytes[i++] - bytes[j++];
    if (d !== 0) return d;
  }
  return endA - i - (endB - j);
}

/**
 * Encodes rows `order[start..end)` (or `start..end` without an order) as a plain string block, or
 * returns null when a dictionary may be better. Fills `summary` as encodeColumnBlock would.
 */
export function encodeAsciiTextBlock(
  text: AsciiText,
  order: Uint32Array | null,
  start: number,
  end: number,
  level: number,
  sink: AsciiSink,
): { data: Buffer; summary: ColumnBlockSummary } | null {
  const n = end - start;
  const rowAt = order === null ? (i: number) => start + i : (i: number) => order[start + i];
  if (n <= DICT_ALWAYS || !mostlyDistinct(text, rowAt, n)) return null;
  const { bytes, ends } = text;
  let total = 0;
  let minRow = rowAt(0);
  let maxRow = minRow;
  for (let i = 0; i < n; i++) {
    const row = rowAt(i);
    total += ends[row] - (row === 0 ? 0 : ends[row - 1]);
    if (compareRows(bytes, ends, row, minRow) < 0) minRow = row;
    if (compareRows(bytes, ends, row, maxRow) > 0) maxRow = row;
  }
  const chunks: number[] = [];
  const w = payloadWriter(total + n * 3 + 64);
  let chunkBytes = 0;
  let chunkRows = 0;
  for (let i = 0; i < n; i++) {
    const row = rowAt(i);
    const length = ends[row] - (row === 0 ? 0 : ends[row - 1]);
    w.varint(length + 1); // a nullable list (encodePlain's layout): 0 is null, else length + 1
    if (chunkBytes + length > CHUNK_BYTES && chunkRows > 0) {
      chunks.push(chunkRows, chunkBytes);
      chunkBytes = 0;
      chunkRows = 0;
    }
    chunkBytes += length;
    chunkRows++;
  }
  chunks.push(chunkRows, chunkBytes);
  w.varint(chunks.length / 2);
  for (let c = 0; c < chunks.length; c += 2) {
    w.ensure(9);
    w.buf.writeUInt32LE(chunks[c], w.pos);
    w.buf[w.pos + 4] = 0; // text encoding: ASCII
    w.buf.writeUInt32LE(chunks[c + 1], w.pos + 5);
    w.pos += 9;
  }
  w.ensure(total + 1); // + 1: room for the sink's sentinel byte
  // Rows in sort order are mostly consecutive in the text: each run is copied at once.
  const out = w.buf;
  for (let i = 0; i < n;) {
    const first = rowAt(i);
    let last = first;
    while (++i < n && rowAt(i) === last + 1) last++;
    const from = first === 0 ? 0 : ends[first - 1];
    const to = ends[last];
    const at = w.pos - from;
    out.set(bytes.subarray(from, to), w.pos);
    for (let row = first, rowStart = from; row <= last; row++) {
      sink(out, at + rowStart, at + ends[row]);
      rowStart = ends[row];
    }
    w.pos += to - from;
  }
  const summary: ColumnBlockSummary = {
    encoding: ColumnEncoding.String,
    counts: { string: n, number: 0, integer: 0, boolean: 0 },
    nullCount: 0,
    min: null,
    max: null,
    minString: rowText(text, minRow),
    maxString: rowText(text, maxRow),
    dict: null,
    stringBytes: total,
  };
  return { data: seal(w, ColumnEncoding.String, n, level), summary };
}
