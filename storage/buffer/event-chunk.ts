/**
 * Event chunks: a batch of normalized events of one partition key in columnar, transferable form.
 *
 * Parsers run in ingest worker threads and hand their events to the main thread as chunks (in a
 * chunk record, chunk-record.ts): typed arrays and UTF-8 bytes, no object per event, kept as they
 * are by the write buffer (memtable.ts). Strings are decoded again only when a
 * query or a flush reads them. A chunk is immutable once built.
 */
import type { FieldValue, LogEvent } from '../core/event';
import { INDEX_COLUMN, RAW_COLUMN, TIME_COLUMN } from '../core/event';
import type { PartitionKey, Placement } from '../core/partition';
import { KeyedChunks, RequestPartitioner } from '../core/request-placement';

/**
 * Strings in one buffer: string i is `bytes[i === 0 ? 0 : ends[i - 1], ends[i])`. Text is UTF-8;
 * `latin1` says every byte is below 0x80 (decoding can skip UTF-8 validation); a list holding a
 * string that is not well-formed UTF-16 (a lone surrogate, which JSON escapes can produce) is
 * stored as `utf16le` so that it round-trips exactly, as the segment format does.
 */
export interface PackedStrings {
  bytes: Uint8Array;
  ends: Uint32Array;
  encoding: 'latin1' | 'utf8' | 'utf16le';
}

export type ChunkFieldType = 'string' | 'number' | 'boolean' | 'mixed';

/** One field of a chunk: its non-null values in row order, stored by type. */
export interface ChunkField {
  name: string;
  /** The rows holding a value, ascending; null when every row holds one. */
  rows: Uint32Array | null;
  type: ChunkFieldType;
  /** `number`: the values; `boolean`: 0 or 1. */
  numbers: Float64Array | null;
  /** `string`: entry i is `dict[codes[i]]` (few distinct values are decoded once, not once per row). */
  codes: Uint32Array | null;
  dict: PackedStrings | null;
  /** `mixed` (the values disagree in type, which is rare): the values as they are. */
  mixed: FieldValue[] | null;
}

export interface EventChunk {
  key: PartitionKey;
  count: number;
  minTime: number;
  maxTime: number;
  /** Event times, microseconds, in arrival order. */
  times: Float64Array;
  raws: PackedStrings;
  fields: ChunkField[];
}

/** A copy in a buffer of its own (pooled small Buffers share one ArrayBuffer: cloning one would copy the whole pool). */
function exactBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

export function packStrings(values: readonly string[]): PackedStrings {
  // One join and one encode beat an encode per string; for ASCII text the ends are the lengths.
  const joined = values.join('');
  const ends = new Uint32Array(values.length);
  if (!(joined as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    let end = 0;
    for (let i = 0; i < values.length; i++) ends[i] = end += values[i].length * 2;
    return { bytes: exactBytes(Buffer.from(joined, 'utf16le')), ends, encoding: 'utf16le' };
  }
  const bytes = exactBytes(Buffer.from(joined, 'utf8'));
  const ascii = bytes.length === joined.length;
  let end = 0;
  for (let i = 0; i < values.length; i++) {
    end += ascii ? values[i].length : Buffer.byteLength(values[i], 'utf8');
    ends[i] = end;
  }
  return { bytes, ends, encoding: ascii ? 'latin1' : 'utf8' };
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Substrings shorter than 13 characters are copies in V8; longer ones are slices of their parent. */
const FLAT_SUBSTRING_MAX = 12;

/** Every string of a packed list. */
export function unpackStrings(packed: PackedStrings, from = 0, to = packed.ends.length): string[] {
  const buffer = bufferOf(packed.bytes);
  const { ends } = packed;
  const out = new Array<string>(to - from);
  let start = from === 0 ? 0 : ends[from - 1];
  if (packed.encoding === 'latin1' && to - from > 1 && ends[to - 1] - start <= (to - from) * FLAT_SUBSTRING_MAX) {
    // Short ASCII strings: one decode and a substring each, not a native call per string. Longer
    // substrings would be V8 slices of the whole, slower to compare than flat strings.
    const base = start;
    const all = buffer.toString('latin1', base, ends[to - 1]);
    for (let i = from; i < to; i++) {
      const end = ends[i];
      out[i - from] = all.substring(start - base, end - base);
      start = end;
    }
    return out;
  }
  for (let i = from; i < to; i++) {
    const end = ends[i];
    out[i - from] = buffer.toString(packed.encoding, start, end);
    start = end;
  }
  return out;
}

/** The stored byte length of string i (UTF-8 unless the list is `utf16le`). */
export function packedLength(packed: PackedStrings, i: number): number {
  return packed.ends[i] - (i === 0 ? 0 : packed.ends[i - 1]);
}

/** The field's values, one per entry of `rows` (or per row when `rows` is null). */
export function fieldValues(field: ChunkField): FieldValue[] {
  switch (field.type) {
    case 'string': {
      const dict = unpackStrings(field.dict as PackedStrings);
      return Array.from(field.codes as Uint32Array, (code) => dict[code]);
    }
    case 'number':
      return Array.from(field.numbers as Float64Array);
    case 'boolean':
      return Array.from(field.numbers as Float64Array, (v) => v === 1);
    case 'mixed':
      return field.mixed as FieldValue[];
  }
}

/** The row of entry i of a field. */
export function fieldRow(field: ChunkField, i: number): number {
  return field.rows === null ? i : field.rows[i];
}

class FieldBuilder {
  readonly rows: number[] = [];
  readonly values: FieldValue[] = [];
  private types = 0;

  constructor(readonly name: string) {}

  add(row: number, value: FieldValue): void {
    this.rows.push(row);
    this.values.push(value);
    this.types |= typeof value === 'string' ? 1 : typeof value === 'number' ? 2 : 4;
  }

  build(count: number): ChunkField {
    const dense = this.rows.length === count;
    const field: ChunkField = {
      name: this.name,
      rows: dense ? null : Uint32Array.from(this.rows),
      type: 'mixed',
      numbers: null,
      codes: null,
      dict: null,
      mixed: null,
    };
    if (this.types === 1) {
      field.type = 'string';
      const codeOf = new Map<string, number>();
      const dict: string[] = [];
      const values = this.values as string[];
      const codes = new Uint32Array(values.length);
      for (let i = 0; i < values.length; i++) {
        let code = codeOf.get(values[i]);
        if (code === undefined) {
          code = dict.length;
          dict.push(values[i]);
          codeOf.set(values[i], code);
        }
        codes[i] = code;
      }
      field.codes = codes;
      field.dict = packStrings(dict);
    } else if (this.types === 2) {
      field.type = 'number';
      field.numbers = Float64Array.from(this.values as number[]);
    } else if (this.types === 4) {
      field.type = 'boolean';
      field.numbers = Float64Array.from(this.values as boolean[], (v) => (v ? 1 : 0));
    } else {
      field.mixed = this.values;
    }
    return field;
  }
}

/** Collects the events of one partition key, then builds their chunk. */
export class ChunkBuilder {
  private readonly times: number[] = [];
  private readonly raws: string[] = [];
  private readonly fields = new Map<string, FieldBuilder>();
  private minTime = Number.POSITIVE_INFINITY;
  private maxTime = Number.NEGATIVE_INFINITY;
  /** Field names and builders of the previous event, in its key order: events of one source share a shape. */
  private readonly shapeNames: string[] = [];
  private readonly shapeFields: FieldBuilder[] = [];

  constructor(readonly key: PartitionKey) {}

  get count(): number {
    return this.times.length;
  }

  append(event: LogEvent): void {
    const row = this.times.length;
    this.times.push(event.time);
    this.raws.push(event.raw);
    if (event.time < this.minTime) this.minTime = event.time;
    if (event.time > this.maxTime) this.maxTime = event.time;
    const fields = event.fields;
    const names = this.shapeNames;
    const builders = this.shapeFields;
    let position = 0;
    for (const name in fields) {
      const value = fields[name];
      // Non-finite numbers (JSON's 1e999) are null, as segments store them: reads agree before and after a flush.
      if (value === undefined || value === null || (typeof value === 'number' && value - value !== 0)) continue;
      let builder: FieldBuilder | undefined;
      if (names[position] === name) builder = builders[position];
      else {
        // Parsers never emit reserved names; refusing them here keeps one bad event from failing a flush.
        if (name === TIME_COLUMN || name === RAW_COLUMN || name === INDEX_COLUMN) continue;
        builder = this.fields.get(name);
        if (builder === undefined) {
          builder = new FieldBuilder(name);
          this.fields.set(name, builder);
        }
        names[position] = name;
        builders[position] = builder;
      }
      position++;
      builder.add(row, value);
    }
  }

  build(): EventChunk {
    const count = this.times.length;
    return {
      key: this.key,
      count,
      minTime: this.minTime,
      maxTime: this.maxTime,
      times: Float64Array.from(this.times),
      raws: packStrings(this.raws),
      fields: [...this.fields.values()].map((builder) => builder.build(count)),
    };
  }
}

/**
 * One request's events as chunks, one per partition key, in order of first appearance. A pair
 * that sends many events spills into further partitions (request-placement.ts).
 */
export function chunkEvents(events: readonly LogEvent[], placement: Placement): EventChunk[] {
  const chunks = new KeyedChunks(placement, (key) => new ChunkBuilder(key));
  const partitioner = placement.partitions > 1 ? new RequestPartitioner(placement.partitions) : null;
  for (const event of events) {
    const partition = partitioner === null ? 0 : partitioner.next(event);
    chunks.chunkFor(event.index, event.time, partition).append(event);
  }
  return [...chunks.values()].map((builder) => builder.build());
}

/** Rows `[start, end)` of a chunk. */
export interface ChunkPiece {
  chunk: EventChunk;
  start: number;
  end: number;
}

/** Cuts chunks (in order) into groups of `size` rows (the last one may be smaller), splitting chunks at group boundaries. */
export function groupChunkRows(chunks: readonly EventChunk[], size: number): ChunkPiece[][] {
  const groups: ChunkPiece[][] = [];
  let group: ChunkPiece[] = [];
  let rows = 0;
  for (const chunk of chunks) {
    for (let start = 0; start < chunk.count;) {
      if (rows === size) {
        groups.push(group);
        group = [];
        rows = 0;
      }
      const end = Math.min(chunk.count, start + (size - rows));
      group.push({ chunk, start, end });
      rows += end - start;
      start = end;
    }
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
