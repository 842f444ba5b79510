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
import { checkChunk, checkHeaderShape, ChunkRecordError } from './chunk-check';

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

/** Arithmetic, not bit operations: a header length read from a record may pass 2^31. */
const align8 = (n: number): number => Math.ceil(n / 8) * 8;

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
 * Throws a ChunkRecordError for a record that does not add up (chunk-check.ts).
 */
export function decodeChunkRecord(value: Uint8Array): { chunks: EventChunk[]; placement: Placement } {
  const record = value.byteOffset % 8 === 0 ? value : new Uint8Array(value);
  if (record.byteLength < 5 || record[0] !== CHUNK_RECORD_KIND) throw new ChunkRecordError(`not a chunk record (kind ${record[0]}, ${record.byteLength} bytes)`);
  const view = Buffer.from(record.buffer, record.byteOffset, record.byteLength);
  const headerLength = view.readUInt32LE(1);
  if (5 + headerLength > record.byteLength) throw new ChunkRecordError(`a header of ${headerLength} bytes in a record of ${record.byteLength}`);
  let header: unknown;
  try {
    header = JSON.parse(view.toString('utf8', 5, 5 + headerLength));
  } catch (error) {
    throw new ChunkRecordError(`the header is not JSON (${(error as Error).message})`);
  }
  checkHeaderShape(header);
  const { placement } = header;
  const start = align8(5 + headerLength);
  const sectionBytes = Math.max(0, record.byteLength - start);
  const base = record.byteOffset + start;
  const memory = record.buffer;
  const check = ([offset, length]: Section, bytes: number, what: string): void => {
    if (offset % bytes !== 0) throw new ChunkRecordError(`${what} starts at ${offset}, not a multiple of ${bytes}`);
    if (offset + length * bytes > sectionBytes) throw new ChunkRecordError(`${what} of ${length} x ${bytes} bytes at ${offset} passes the end of the record's ${sectionBytes} bytes of sections`);
  };
  const u8 = (s: Section, what: string): Uint8Array => (check(s, 1, what), new Uint8Array(memory, base + s[0], s[1]));
  const u32 = (s: Section, what: string): Uint32Array => (check(s, 4, what), new Uint32Array(memory, base + s[0], s[1]));
  const f64 = (s: Section, what: string): Float64Array => (check(s, 8, what), new Float64Array(memory, base + s[0], s[1]));
  const packed = (p: PackedHeader, what: string): PackedStrings => ({ bytes: u8(p.bytes, `${what} bytes`), ends: u32(p.ends, `${what} ends`), encoding: p.encoding });
  const chunks = (header.chunks as ChunkHeader[]).map((chunk, c): EventChunk => {
    const what = `chunk ${c}`;
    const decoded: EventChunk = {
      key: { index: chunk.key.index, bucket: chunk.key.bucket, partition: chunk.key.partition },
      count: chunk.count,
      minTime: chunk.count === 0 ? Number.POSITIVE_INFINITY : chunk.minTime,
      maxTime: chunk.count === 0 ? Number.NEGATIVE_INFINITY : chunk.maxTime,
      times: f64(chunk.times, `${what} times`),
      raws: packed(chunk.raws, `${what} _raw`),
      fields: chunk.fields.map((field, f): ChunkField => {
        const at = `${what} field ${f}`;
        return {
          name: field.name,
          type: field.type,
          rows: field.rows === null ? null : u32(field.rows, `${at} rows`),
          numbers: field.numbers === null ? null : f64(field.numbers, `${at} numbers`),
          codes: field.codes === null ? null : u32(field.codes, `${at} codes`),
          dict: field.dict === null ? null : packed(field.dict, `${at} dictionary`),
          mixed: field.mixed === null ? null : mixedFromJSON(field.mixed),
        };
      }),
    };
    checkChunk(decoded, placement, what);
    return decoded;
  });
  return { chunks, placement: { bucketSpanMicros: placement.bucketSpanMicros, partitions: placement.partitions } };
}
