/**
 * Chunk records of kind 2 (JSON_CHUNK_RECORD_KIND), which builds before the binary header wrote:
 * the header is JSON of RecordHeader. Write-buffer records and hints of that kind are still read
 * (replay after an upgrade, hints kept before it); nothing writes them but tests.
 */
import type { FieldValue } from '../core/event';
import type { ChunkField, ChunkFieldType, EventChunk, PackedStrings } from './event-chunk';
import type { PartitionKey, Placement } from '../core/partition';
import { checkChunk, checkHeaderShape, ChunkRecordError } from './chunk-check';
import { align8, RecordSections, SectionLayout } from './record-sections';

export const JSON_CHUNK_RECORD_KIND = 2;

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
 * A mixed column's value in JSON. JSON has no -0, NaN or infinities: such a number is written as
 * its text (`{"number": "-0"}`), so a value reads back exactly (records written before hold plain
 * values, which read as they are).
 */
export type MixedValueJSON = FieldValue | { number: string };

export function mixedToJSON(values: readonly FieldValue[]): MixedValueJSON[] {
  return values.map((value) =>
    typeof value === 'number' && (Object.is(value, -0) || !Number.isFinite(value))
      ? { number: Object.is(value, -0) ? '-0' : String(value) }
      : value,
  );
}

export function mixedFromJSON(values: readonly MixedValueJSON[]): FieldValue[] {
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

/** A record of kind 2 (tests make them, to prove they are still read). */
export function encodeJsonChunkRecord(chunks: readonly EventChunk[], placement: Placement): Buffer {
  const layout = new SectionLayout();
  const place = (array: ArrayBufferView & { length: number }): Section => [layout.place(array), array.length];
  const packed = (strings: PackedStrings): PackedHeader => ({
    bytes: place(strings.bytes),
    ends: place(strings.ends),
    encoding: strings.encoding,
  });
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
  const header = Buffer.from(JSON.stringify({ placement, chunks: headers } satisfies RecordHeader));
  const base = align8(5 + header.length);
  const record = Buffer.from(new SharedArrayBuffer(base + layout.end));
  record[0] = JSON_CHUNK_RECORD_KIND;
  record.writeUInt32LE(header.length, 1);
  header.copy(record, 5);
  layout.copyInto(record, base);
  return record;
}

/** The chunks of a kind-2 record (aligned, its header `headerLength` bytes at 5). */
export function decodeJsonChunkRecord(
  record: Uint8Array,
  view: Buffer,
  headerLength: number,
): { chunks: EventChunk[]; placement: Placement } {
  let header: unknown;
  try {
    header = JSON.parse(view.toString('utf8', 5, 5 + headerLength));
  } catch (error) {
    throw new ChunkRecordError(`the header is not JSON (${(error as Error).message})`);
  }
  checkHeaderShape(header);
  const { placement } = header;
  const sections = new RecordSections(record, align8(5 + headerLength));
  const u32 = ([offset, length]: Section, what: string): Uint32Array => sections.u32(offset, length, () => what);
  const f64 = ([offset, length]: Section, what: string): Float64Array => sections.f64(offset, length, () => what);
  const packed = (p: PackedHeader, what: string): PackedStrings =>
    sections.packed(p.bytes[0], p.bytes[1], p.ends[0], p.ends[1], p.encoding, () => what);
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
