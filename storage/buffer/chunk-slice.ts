/**
 * Rows of a chunk as a chunk of their own, and what a chunk weighs in a record: a write to
 * another node travels in messages of bounded size, so a large chunk is cut by rows. A slice
 * shares the chunk's memory where it can (times, numbers); a string field keeps only the
 * dictionary entries its rows use, so no slice carries the whole dictionary of a large chunk.
 */
import type { FieldValue } from '../core/event';
import { lowerBound } from '../core/sorted';
import type { ChunkField, EventChunk, PackedStrings } from './event-chunk';

/** Bytes of a packed list's strings `[from, to)`. */
function packedSpan(packed: PackedStrings, from: number, to: number): [number, number] {
  const start = from === 0 ? 0 : packed.ends[from - 1];
  const end = to === 0 ? 0 : packed.ends[to - 1];
  return [start, end];
}

/** The strings `[from, to)` of a packed list. */
function slicePacked(packed: PackedStrings, from: number, to: number): PackedStrings {
  const [start, end] = packedSpan(packed, from, to);
  const ends = new Uint32Array(to - from);
  for (let i = from; i < to; i++) ends[i - from] = packed.ends[i] - start;
  return { bytes: packed.bytes.subarray(start, end), ends, encoding: packed.encoding };
}

/** The strings of `packed` at `picks`, in that order. */
function pickPacked(packed: PackedStrings, picks: readonly number[]): PackedStrings {
  let total = 0;
  for (const i of picks) total += packed.ends[i] - (i === 0 ? 0 : packed.ends[i - 1]);
  const bytes = new Uint8Array(total);
  const ends = new Uint32Array(picks.length);
  let at = 0;
  picks.forEach((i, n) => {
    const [start, end] = packedSpan(packed, i, i + 1);
    bytes.set(packed.bytes.subarray(start, end), at);
    at += end - start;
    ends[n] = at;
  });
  return { bytes, ends, encoding: packed.encoding };
}

/** Entries `[from, to)` of a string field's codes, with a dictionary of only the codes they use. */
function sliceCodes(codes: Uint32Array, dict: PackedStrings, from: number, to: number): { codes: Uint32Array; dict: PackedStrings } {
  const remap = new Map<number, number>();
  const used: number[] = [];
  const out = new Uint32Array(to - from);
  for (let i = from; i < to; i++) {
    let code = remap.get(codes[i]);
    if (code === undefined) {
      code = used.length;
      used.push(codes[i]);
      remap.set(codes[i], code);
    }
    out[i - from] = code;
  }
  return { codes: out, dict: pickPacked(dict, used) };
}

/** Rows `[start, end)` of a field; null when none of them holds a value. */
function sliceField(field: ChunkField, start: number, end: number): ChunkField | null {
  const from = field.rows === null ? start : lowerBound(field.rows, start);
  const to = field.rows === null ? end : lowerBound(field.rows, end);
  if (to === from) return null;
  let rows: Uint32Array | null = null;
  if (field.rows !== null && to - from !== end - start) {
    rows = new Uint32Array(to - from);
    for (let i = from; i < to; i++) rows[i - from] = field.rows[i] - start;
  }
  const sliced: ChunkField = { name: field.name, type: field.type, rows, numbers: null, codes: null, dict: null, mixed: null };
  if (field.numbers !== null) sliced.numbers = field.numbers.subarray(from, to);
  if (field.codes !== null && field.dict !== null) Object.assign(sliced, sliceCodes(field.codes, field.dict, from, to));
  if (field.mixed !== null) sliced.mixed = (field.mixed as FieldValue[]).slice(from, to);
  return sliced;
}

/** Rows `[start, end)` of a chunk, as a chunk of the same key. */
export function sliceChunk(chunk: EventChunk, start: number, end: number): EventChunk {
  if (start === 0 && end === chunk.count) return chunk;
  const times = chunk.times.subarray(start, end);
  let minTime = Number.POSITIVE_INFINITY;
  let maxTime = Number.NEGATIVE_INFINITY;
  for (const time of times) {
    if (time < minTime) minTime = time;
    if (time > maxTime) maxTime = time;
  }
  const fields: ChunkField[] = [];
  for (const field of chunk.fields) {
    const sliced = sliceField(field, start, end);
    if (sliced !== null) fields.push(sliced);
  }
  return { key: chunk.key, count: end - start, minTime, maxTime, times, raws: slicePacked(chunk.raws, start, end), fields };
}

/** About how many bytes a chunk takes in a chunk record (its arrays, and a share of header per field). */
export function chunkRecordBytes(chunk: EventChunk): number {
  let bytes = 256 + chunk.times.byteLength + chunk.raws.bytes.byteLength + chunk.raws.ends.byteLength;
  for (const field of chunk.fields) {
    bytes += 64 + field.name.length;
    bytes += (field.rows?.byteLength ?? 0) + (field.numbers?.byteLength ?? 0) + (field.codes?.byteLength ?? 0);
    if (field.dict !== null) bytes += field.dict.bytes.byteLength + field.dict.ends.byteLength;
    if (field.mixed !== null) bytes += JSON.stringify(field.mixed).length;
  }
  return bytes;
}
