/**
 * Chunk records: the event chunks of one ingest request serialized into ONE buffer, which is at
 * once the write-buffer record (durable in RocksDB) and the memory the memtable reads (the
 * chunks' typed arrays are views into it). The buffer is a SharedArrayBuffer, written once by the
 * parse worker and only read after: the main thread, the codec worker (flush) and the query
 * workers all read the same memory, and no message copies it. Replay needs no parser.
 *
 *   u8   kind (CHUNK_RECORD_KIND)
 *   u32  header length (little-endian)
 *   ...  header: JSON of RecordHeader (placement, chunk metadata, section offsets)
 *   ...  sections, each 8-byte aligned: times, raws, and the field arrays of every chunk
 */
import type { FieldValue } from '../event';
import type { ChunkField, ChunkFieldType, EventChunk, PackedStrings } from './event-chunk';
import type { PartitionKey, Placement } from '../partition';

export const CHUNK_RECORD_KIND = 2;

/** A typed array's place in the record: byte offset and element count. */
type Section = [offset: number, length: number];

interface PackedHeader {
  bytes: Section;
  ends: Section;
  encoding: PackedStrings['encoding'];
}

interface FieldHeader {
  name: string;
  type: ChunkFieldType;
  rows: Section | null;
  numbers: Section | null;
  codes: Section | null;
  dict: PackedHeader | null;
  mixed: MixedValueJSON[] | null;
}

/**
 * A mixed column's value in the JSON header. JSON has no -0, NaN or infinities: such a number is
 * written as its text (`{"number": "-0"}`), so a value reads back exactly (records written before
 * hold plain values, which read as they are).
 */
type MixedValueJSON = FieldValue | { number: string };

function mixedToJSON(values: readonly FieldValue[]): MixedValueJSON[] {
  return values.map((value) =>
    typeof value === 'number' && (Object.is(value, -0) || !Number.isFinite(value)) ? { number: Object.is(value, -0) ? '-0' : String(value) } : value,
  );
}

function mixedFromJSON(values: readonly MixedValueJSON[]): FieldValue[] {
  return values.map((value) => (typeof value === 'object' && value !== null ? Number(value.number) : value));
}

interface ChunkHeader {
  key: PartitionKey;
  count: number;
  minTime: number;
  maxTime: number;
  times: Section;
  raws: PackedHeader;
  fields: FieldHeader[];
}

interface RecordHeader {
  placement: Placement;
  chunks: ChunkHeader[];
}

const align8 = (n: number): number => (n + 7) & ~7;

/** Lays out the sections; `copy` receives each array and its byte offset. */
function layout(chunks: readonly EventChunk[], start: number, copy: (array: ArrayBufferView, offset: number) => void): { headers: ChunkHeader[]; end: number } {
  let at = start;
  const place = (array: ArrayBufferView & { length: number }): Section => {
    at = align8(at);
    const section: Section = [at, array.length];
    copy(array, at);
    at += array.byteLength;
    return section;
  };
  const packed = (strings: PackedStrings): PackedHeader => ({ bytes: place(strings.bytes), ends: place(strings.ends), encoding: strings.encoding });
  const headers = chunks.map((chunk) => ({
    key: chunk.key,
    count: chunk.count,
    minTime: chunk.minTime,
    maxTime: chunk.maxTime,
    times: place(chunk.times),
    raws: packed(chunk.raws),
    fields: chunk.fields.map((field) => ({
      name: field.name,
      type: field.type,
      rows: field.rows === null ? null : place(field.rows),
      numbers: field.numbers === null ? null : place(field.numbers),
      codes: field.codes === null ? null : place(field.codes),
      dict: field.dict === null ? null : packed(field.dict),
      mixed: field.mixed === null ? null : mixedToJSON(field.mixed),
    })),
  }));
  return { headers, end: at };
}

/** The record of a request's chunks. */
export function encodeChunkRecord(chunks: readonly EventChunk[], placement: Placement): Buffer {
  // Offsets are relative to the sections' start, so the header can be sized before it is known.
  const sized = layout(chunks, 0, () => undefined);
  const header = Buffer.from(JSON.stringify({ placement, chunks: sized.headers } satisfies RecordHeader));
  const base = align8(5 + header.length);
  const record = Buffer.from(new SharedArrayBuffer(base + sized.end));
  record[0] = CHUNK_RECORD_KIND;
  record.writeUInt32LE(header.length, 1);
  header.copy(record, 5);
  layout(chunks, 0, (array, offset) => {
    record.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), base + offset);
  });
  return record;
}

/**
 * The chunks of a record, as views into it (no copy), and the placement they were keyed with.
 * Offsets in a record are 8-byte aligned from its start, so `record.byteOffset` must be too
 * (RocksDB values and transferred buffers start at 0; otherwise the record is copied first).
 */
export function decodeChunkRecord(value: Uint8Array): { chunks: EventChunk[]; placement: Placement } {
  const record = value.byteOffset % 8 === 0 ? value : new Uint8Array(value);
  if (record[0] !== CHUNK_RECORD_KIND) throw new Error(`not a chunk record (kind ${record[0]})`);
  const view = Buffer.from(record.buffer, record.byteOffset, record.byteLength);
  const headerLength = view.readUInt32LE(1);
  const header = JSON.parse(view.toString('utf8', 5, 5 + headerLength)) as RecordHeader;
  const base = record.byteOffset + align8(5 + headerLength);
  const memory = record.buffer;
  if (align8(5 + headerLength) > record.byteLength) throw new Error('chunk record: truncated header');
  const check = ([offset, length]: Section, bytes: number): void => {
    if (offset < 0 || offset + length * bytes > record.byteLength - align8(5 + headerLength)) throw new Error('chunk record: section out of range');
  };
  const u8 = (s: Section): Uint8Array => (check(s, 1), new Uint8Array(memory, base + s[0], s[1]));
  const u32 = (s: Section): Uint32Array => (check(s, 4), new Uint32Array(memory, base + s[0], s[1]));
  const f64 = (s: Section): Float64Array => (check(s, 8), new Float64Array(memory, base + s[0], s[1]));
  const packed = (p: PackedHeader): PackedStrings => ({ bytes: u8(p.bytes), ends: u32(p.ends), encoding: p.encoding });
  const chunks = header.chunks.map(
    (chunk): EventChunk => ({
      key: chunk.key,
      count: chunk.count,
      minTime: chunk.minTime,
      maxTime: chunk.maxTime,
      times: f64(chunk.times),
      raws: packed(chunk.raws),
      fields: chunk.fields.map(
        (field): ChunkField => ({
          name: field.name,
          type: field.type,
          rows: field.rows === null ? null : u32(field.rows),
          numbers: field.numbers === null ? null : f64(field.numbers),
          codes: field.codes === null ? null : u32(field.codes),
          dict: field.dict === null ? null : packed(field.dict),
          mixed: field.mixed === null ? null : mixedFromJSON(field.mixed),
        }),
      ),
    }),
  );
  return { chunks, placement: header.placement };
}
