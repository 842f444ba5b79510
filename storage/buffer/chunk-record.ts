/**
 * Chunk records: the event chunks of one ingest request serialized into ONE buffer, which is at
 * once the write-buffer record (durable in RocksDB) and the memory the memtable reads (the
 * chunks' typed arrays are views into it). The buffer is a SharedArrayBuffer, written once by the
 * parse worker and only read after: the main thread, the codec worker (flush) and the query
 * workers all read the same memory, and no message copies it. Replay needs no parser.
 *
 *   u8   kind (CHUNK_RECORD_KIND)
 *   u32  header length (little-endian)
 *   ...  header, binary (below)
 *   ...  sections, each 8-byte aligned: times, raws, and the field arrays of every chunk
 *
 * The header, little-endian: the placement (f64 bucket span, f64 partitions); a string table
 * (u32 count, then each a u32 byte length and its UTF-8) holding index and field names once per
 * record, and mixed columns' values as JSON; u32 chunk count, then per chunk its key (u32 index
 * string, f64 bucket, u32 partition), u32 count, f64 min and max time, its times and `_raw`
 * sections and its fields (u32 count; per field u32 name string, u8 type, u8 the arrays it holds,
 * then those). A section is u32 byte offset (from the sections' start) and u32 element count; a
 * list of strings is a u8 encoding and two sections. A request spread over many keys makes a
 * chunk per key: a JSON header cost some 1.2 KB and its parse per chunk.
 *
 * Records of kind 2 (chunk-record-json.ts, a JSON header) are still read.
 */
import type { ChunkField, ChunkFieldType, EventChunk, PackedStrings } from './event-chunk';
import type { Placement } from '../core/partition';
import { checkChunk, ChunkRecordError } from './chunk-check';
import { decodeJsonChunkRecord, JSON_CHUNK_RECORD_KIND, mixedFromJSON, mixedToJSON, type MixedValueJSON } from './chunk-record-json';
import { HeaderReader, HeaderWriter } from './header-bytes';
import { align8, RecordSections, SectionLayout } from './record-sections';

/** The kind records are written as. */
export const CHUNK_RECORD_KIND = 3;

/** Whether a write-buffer value is a chunk record of a kind this build reads. */
export function isChunkRecordKind(kind: number | undefined): boolean {
  return kind === CHUNK_RECORD_KIND || kind === JSON_CHUNK_RECORD_KIND;
}

const ENCODINGS: readonly PackedStrings['encoding'][] = ['latin1', 'utf8', 'utf16le'];
const TYPES: readonly ChunkFieldType[] = ['string', 'number', 'boolean', 'mixed'];
const ENCODING_CODE = new Map(ENCODINGS.map((encoding, code) => [encoding, code]));
const TYPE_CODE = new Map(TYPES.map((type, code) => [type, code]));

/** Which arrays a field holds, as bits. */
const ROWS = 1;
const NUMBERS = 2;
const CODES = 4;
const DICT = 8;
const MIXED = 16;
const ALL_ARRAYS = ROWS | NUMBERS | CODES | DICT | MIXED;

/** The string table: each string once, by the order first met. */
class StringTable {
  private readonly ids = new Map<string, number>();
  readonly strings: string[] = [];

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(value);
      this.ids.set(value, id);
    }
    return id;
  }
}

/** The record of a request's chunks. */
export function encodeChunkRecord(chunks: readonly EventChunk[], placement: Placement): Buffer {
  return encodeWithLayout(chunks, placement).record;
}

/**
 * The record of chunks this node holds already (decoded and checked), and the same chunks as
 * views into it, as decodeChunkRecord would give them without reading the record again.
 */
export function encodeChunkRecordViews(chunks: readonly EventChunk[], placement: Placement): { record: Buffer; chunks: EventChunk[] } {
  const { record, layout, base } = encodeWithLayout(chunks, placement);
  const memory = record.buffer;
  let next = 0;
  const view = <T extends Float64Array | Uint32Array | Uint8Array>(array: T): T => {
    const at = record.byteOffset + base + layout.offsets[next++];
    const Type = array.constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => T;
    return new Type(memory, at, array.length);
  };
  const packed = (list: PackedStrings): PackedStrings => ({ bytes: view(list.bytes), ends: view(list.ends), encoding: list.encoding });
  // The same order as encodeWithLayout places the arrays.
  const views = chunks.map((chunk): EventChunk => ({
    key: chunk.key,
    count: chunk.count,
    minTime: chunk.minTime,
    maxTime: chunk.maxTime,
    times: view(chunk.times),
    raws: packed(chunk.raws),
    fields: chunk.fields.map((field) => ({
      name: field.name,
      type: field.type,
      rows: field.rows === null ? null : view(field.rows),
      numbers: field.numbers === null ? null : view(field.numbers),
      codes: field.codes === null ? null : view(field.codes),
      dict: field.dict === null ? null : packed(field.dict),
      mixed: field.mixed,
    })),
  }));
  return { record, chunks: views };
}

function encodeWithLayout(chunks: readonly EventChunk[], placement: Placement): { record: Buffer; layout: SectionLayout; base: number } {
  const layout = new SectionLayout();
  const strings = new StringTable();
  const body = new HeaderWriter();
  const section = (array: ArrayBufferView & { length: number }): void => {
    body.u32(layout.place(array));
    body.u32(array.length);
  };
  const packed = (list: PackedStrings): void => {
    body.u8(ENCODING_CODE.get(list.encoding)!);
    section(list.bytes);
    section(list.ends);
  };
  body.u32(chunks.length);
  for (const chunk of chunks) {
    body.u32(strings.id(chunk.key.index));
    body.f64(chunk.key.bucket);
    body.u32(chunk.key.partition);
    body.u32(chunk.count);
    body.f64(chunk.minTime);
    body.f64(chunk.maxTime);
    section(chunk.times);
    packed(chunk.raws);
    body.u32(chunk.fields.length);
    for (const field of chunk.fields) {
      body.u32(strings.id(field.name));
      body.u8(TYPE_CODE.get(field.type)!);
      body.u8(
        (field.rows === null ? 0 : ROWS) |
          (field.numbers === null ? 0 : NUMBERS) |
          (field.codes === null ? 0 : CODES) |
          (field.dict === null ? 0 : DICT) |
          (field.mixed === null ? 0 : MIXED),
      );
      if (field.rows !== null) section(field.rows);
      if (field.numbers !== null) section(field.numbers);
      if (field.codes !== null) section(field.codes);
      if (field.dict !== null) packed(field.dict);
      if (field.mixed !== null) body.u32(strings.id(JSON.stringify(mixedToJSON(field.mixed))));
    }
  }
  const head = new HeaderWriter();
  head.f64(placement.bucketSpanMicros);
  head.f64(placement.partitions);
  head.u32(strings.strings.length);
  for (const text of strings.strings) head.text(text);
  const prefix = head.written();
  const rest = body.written();
  const headerLength = prefix.length + rest.length;
  const base = align8(5 + headerLength);
  const record = Buffer.from(new SharedArrayBuffer(base + layout.end));
  record[0] = CHUNK_RECORD_KIND;
  record.writeUInt32LE(headerLength, 1);
  prefix.copy(record, 5);
  rest.copy(record, 5 + prefix.length);
  layout.copyInto(record, base);
  return { record, layout, base };
}

/**
 * The chunks of a record, as views into it (no copy), and the placement they were keyed with.
 * Offsets in a record are 8-byte aligned from its start, so `record.byteOffset` must be too
 * (RocksDB values and transferred buffers start at 0; otherwise the record is copied first).
 * Throws a ChunkRecordError for a record that does not add up (chunk-check.ts).
 */
export function decodeChunkRecord(value: Uint8Array): { chunks: EventChunk[]; placement: Placement } {
  const record = value.byteOffset % 8 === 0 ? value : new Uint8Array(value);
  if (record.byteLength < 5 || !isChunkRecordKind(record[0]))
    throw new ChunkRecordError(`not a chunk record (kind ${record[0]}, ${record.byteLength} bytes)`);
  const view = Buffer.from(record.buffer, record.byteOffset, record.byteLength);
  const headerLength = view.readUInt32LE(1);
  if (5 + headerLength > record.byteLength)
    throw new ChunkRecordError(`a header of ${headerLength} bytes in a record of ${record.byteLength}`);
  if (record[0] === JSON_CHUNK_RECORD_KIND) return decodeJsonChunkRecord(record, view, headerLength);
  return decodeBinary(record, view, headerLength);
}

function decodeBinary(record: Uint8Array, view: Buffer, headerLength: number): { chunks: EventChunk[]; placement: Placement } {
  const header = new HeaderReader(view, 5, 5 + headerLength);
  const bucketSpanMicros = header.f64('the placement');
  const partitions = header.f64('the placement');
  if (!(Number.isSafeInteger(bucketSpanMicros) && bucketSpanMicros > 0 && Number.isSafeInteger(partitions) && partitions > 0)) {
    throw new ChunkRecordError(
      `placement ${bucketSpanMicros} µs, ${partitions} partitions has no positive bucket span and partition count`,
    );
  }
  const placement: Placement = { bucketSpanMicros, partitions };
  const stringCount = header.u32('the string count');
  // Each string takes 4 header bytes at least: a count past that is refused before any allocation.
  if (stringCount * 4 > headerLength) throw new ChunkRecordError(`the header claims ${stringCount} strings in ${headerLength} bytes`);
  const strings = new Array<string>(stringCount);
  for (let i = 0; i < stringCount; i++) strings[i] = header.text(`string ${i}`);
  const string = (what: () => string): string => {
    const id = header.u32(what);
    if (id >= stringCount) throw new ChunkRecordError(`${what()} names string ${id} of ${stringCount}`);
    return strings[id];
  };
  const sections = new RecordSections(record, align8(5 + headerLength));
  const encoding = (what: () => string): PackedStrings['encoding'] => {
    const code = header.u8(what);
    if (code >= ENCODINGS.length) throw new ChunkRecordError(`${what()} is in no known encoding (${code})`);
    return ENCODINGS[code];
  };
  const packed = (what: () => string): PackedStrings => {
    const kind = encoding(what);
    const bytes = header.u32(what);
    const bytesLength = header.u32(what);
    const ends = header.u32(what);
    const endsLength = header.u32(what);
    return sections.packed(bytes, bytesLength, ends, endsLength, kind, what);
  };
  const chunkCount = header.u32('the chunk count');
  if (chunkCount * 8 > headerLength) throw new ChunkRecordError(`the header claims ${chunkCount} chunks in ${headerLength} bytes`);
  const chunks = new Array<EventChunk>(chunkCount);
  for (let c = 0; c < chunkCount; c++) {
    const what = `chunk ${c}`;
    const index = string(() => `${what}'s index`);
    const key = (): string => `${what}'s key`;
    const bucket = header.f64(key);
    if (!Number.isSafeInteger(bucket)) throw new ChunkRecordError(`${what}'s key is not an index, a bucket and a partition`);
    const partition = header.u32(key);
    const count = header.u32(() => `${what}'s count`);
    const timesWhat = (): string => `${what} times`;
    const minTime = header.f64(timesWhat);
    const maxTime = header.f64(timesWhat);
    const timesAt = header.u32(timesWhat);
    const times = sections.f64(timesAt, header.u32(timesWhat), timesWhat);
    const raws = packed(() => `${what} _raw`);
    const fieldCount = header.u32(() => `${what}'s fields`);
    const fields: ChunkField[] = [];
    for (let f = 0; f < fieldCount; f++) fields.push(decodeField(header, sections, string, packed, () => `${what} field ${f}`));
    const chunk: EventChunk = {
      key: { index, bucket, partition },
      count,
      minTime: count === 0 ? Number.POSITIVE_INFINITY : minTime,
      maxTime: count === 0 ? Number.NEGATIVE_INFINITY : maxTime,
      times,
      raws,
      fields,
    };
    checkChunk(chunk, placement, what);
    chunks[c] = chunk;
  }
  header.finish();
  return { chunks, placement };
}

function decodeField(
  header: HeaderReader,
  sections: RecordSections,
  string: (what: () => string) => string,
  packed: (what: () => string) => PackedStrings,
  at: () => string,
): ChunkField {
  const name = string(() => `${at()}'s name`);
  const typeCode = header.u8(at);
  if (typeCode >= TYPES.length) throw new ChunkRecordError(`${at()} has no name or no known type`);
  const holds = header.u8(at);
  if ((holds & ~ALL_ARRAYS) !== 0) throw new ChunkRecordError(`${at()} holds arrays of no known kind (${holds})`);
  const u32 = (array: string): Uint32Array => {
    const what = (): string => `${at()} ${array}`;
    return sections.u32(header.u32(what), header.u32(what), what);
  };
  const f64 = (array: string): Float64Array => {
    const what = (): string => `${at()} ${array}`;
    return sections.f64(header.u32(what), header.u32(what), what);
  };
  const rows = holds & ROWS ? u32('rows') : null;
  const numbers = holds & NUMBERS ? f64('numbers') : null;
  const codes = holds & CODES ? u32('codes') : null;
  const dict = holds & DICT ? packed(() => `${at()} dictionary`) : null;
  const mixed =
    holds & MIXED
      ? mixedValues(
          string(() => `${at()}.mixed`),
          at,
        )
      : null;
  return { name, type: TYPES[typeCode], rows, numbers, codes, dict, mixed };
}

/** A mixed column's values from their JSON (checkChunk then checks each is a string, a finite number or a boolean). */
function mixedValues(text: string, at: () => string): ChunkField['mixed'] {
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    throw new ChunkRecordError(`${at()}.mixed is not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(values)) throw new ChunkRecordError(`${at()}.mixed is not a list`);
  return mixedFromJSON(values as MixedValueJSON[]);
}
