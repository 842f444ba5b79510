/**
 * What a chunk record (chunk-record.ts) must satisfy before its chunks are kept: its header has
 * the shape the encoder writes, every section lies inside the record, and every count, offset
 * and value agrees with the bytes it describes. A record comes from a parse worker, from a peer
 * (ShardWrite) or from disk (replay); one that does not add up would fail every flush and every
 * read of its memtable, so it is refused whole at decode time instead.
 */
import { isAscii } from 'buffer';
import { INDEX_COLUMN, isStoredIndexName, RAW_COLUMN, TIME_COLUMN } from '../core/event';
import { bucketEndOf, type Placement } from '../core/partition';
import type { ChunkField, ChunkFieldType, EventChunk, PackedStrings } from './event-chunk';

/** A record that does not add up: its header, a section or a count disagrees with its bytes. */
export class ChunkRecordError extends Error {
  constructor(message: string) {
    super(`chunk record: ${message}`);
    this.name = 'ChunkRecordError';
  }
}

const ENCODINGS: ReadonlySet<unknown> = new Set<PackedStrings['encoding']>(['latin1', 'utf8', 'utf16le']);
const FIELD_TYPES: ReadonlySet<unknown> = new Set<ChunkFieldType>(['string', 'number', 'boolean', 'mixed']);
/** Columns every segment has of its own: a field of that name would collide with them in a flush. */
const STORED_COLUMNS: ReadonlySet<string> = new Set([TIME_COLUMN, RAW_COLUMN, INDEX_COLUMN]);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const quoted = (text: string): string => `'${text.slice(0, 140)}'`;

/** Throws unless `header` (parsed JSON) has the shape of a record header; what the sections hold is checked by checkChunk. */
export function checkHeaderShape(header: unknown): asserts header is { placement: Placement; chunks: unknown[] } {
  if (!isObject(header) || !isObject(header.placement) || !Array.isArray(header.chunks))
    throw new ChunkRecordError('the header is not an object with a placement and chunks');
  const { bucketSpanMicros, partitions } = header.placement;
  if (!(
    Number.isSafeInteger(bucketSpanMicros) &&
    (bucketSpanMicros as number) > 0 &&
    Number.isSafeInteger(partitions) &&
    (partitions as number) > 0
  )) {
    throw new ChunkRecordError(
      `placement ${JSON.stringify(header.placement).slice(0, 100)} has no positive bucket span and partition count`,
    );
  }
  header.chunks.forEach((chunk, c) => checkChunkShape(chunk, `chunk ${c}`));
}

function checkSectionShape(section: unknown, what: string): void {
  if (!(Array.isArray(section) && section.length === 2 && isCount(section[0]) && isCount(section[1])))
    throw new ChunkRecordError(`${what} is not a section [offset, length]`);
}

function checkPackedShape(packed: unknown, what: string): void {
  if (!isObject(packed) || !ENCODINGS.has(packed.encoding))
    throw new ChunkRecordError(`${what} is not a list of strings in a known encoding`);
  checkSectionShape(packed.bytes, `${what}.bytes`);
  checkSectionShape(packed.ends, `${what}.ends`);
}

function checkChunkShape(chunk: unknown, what: string): void {
  if (!isObject(chunk) || !isObject(chunk.key) || !Array.isArray(chunk.fields))
    throw new ChunkRecordError(`${what} is not an object with a key and fields`);
  const { index, bucket, partition } = chunk.key;
  if (typeof index !== 'string' || !Number.isSafeInteger(bucket) || !Number.isSafeInteger(partition))
    throw new ChunkRecordError(`${what}'s key is not an index, a bucket and a partition`);
  if (!isCount(chunk.count)) throw new ChunkRecordError(`${what}'s count ${String(chunk.count).slice(0, 30)} is not a whole number`);
  checkSectionShape(chunk.times, `${what}.times`);
  checkPackedShape(chunk.raws, `${what}.raws`);
  chunk.fields.forEach((field: unknown, f) => {
    const at = `${what} field ${f}`;
    if (!isObject(field) || typeof field.name !== 'string' || !FIELD_TYPES.has(field.type))
      throw new ChunkRecordError(`${at} has no name or no known type`);
    for (const name of ['rows', 'numbers', 'codes'] as const) if (field[name] !== null) checkSectionShape(field[name], `${at}.${name}`);
    if (field.dict !== null) checkPackedShape(field.dict, `${at}.dict`);
    if (field.mixed !== null && !Array.isArray(field.mixed)) throw new ChunkRecordError(`${at}.mixed is not a list`);
  });
}

/**
 * Throws unless a decoded chunk adds up: its key is placed by `placement`, it holds `count` times,
 * raws and entries, its times lie in its bucket, and every offset, row and code points inside
 * what it indexes.
 */
export function checkChunk(chunk: EventChunk, placement: Placement, what: string): void {
  const { key, count } = chunk;
  if (!isStoredIndexName(key.index)) throw new ChunkRecordError(`${what} is of index ${quoted(key.index)}, which is not an index name`);
  // A key's bucket is a bucket's start or a split inside it: which splits exist, the cluster knows (share-checks.ts).
  if (!(key.bucket >= 0)) throw new ChunkRecordError(`${what}'s bucket ${key.bucket} is before 1970`);
  if (key.partition < 0 || key.partition >= placement.partitions)
    throw new ChunkRecordError(`${what}'s partition ${key.partition} is not in [0, ${placement.partitions})`);
  if (chunk.times.length !== count) throw new ChunkRecordError(`${what} claims ${count} rows but holds ${chunk.times.length} times`);
  if (chunk.raws.ends.length !== count)
    throw new ChunkRecordError(`${what} claims ${count} rows but holds ${chunk.raws.ends.length} _raw texts`);
  checkPacked(chunk.raws, `${what} _raw`);
  checkTimes(chunk, placement, what);
  const names = new Set<string>();
  for (const field of chunk.fields) {
    if (field.name === '' || STORED_COLUMNS.has(field.name))
      throw new ChunkRecordError(`${what} has a field named ${quoted(field.name)}, which names no field`);
    if (names.has(field.name)) throw new ChunkRecordError(`${what} has field ${quoted(field.name)} twice`);
    names.add(field.name);
    checkField(field, count, `${what} field ${quoted(field.name)}`);
  }
}

function checkTimes(chunk: EventChunk, placement: Placement, what: string): void {
  const { bucket } = chunk.key;
  const end = bucketEndOf(bucket, placement.bucketSpanMicros);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let row = 0; row < chunk.count; row++) {
    const time = chunk.times[row];
    if (!(time >= bucket && time < end))
      throw new ChunkRecordError(`${what} row ${row} has time ${time}, not in its bucket [${bucket}, ${end})`);
    if (time < min) min = time;
    if (time > max) max = time;
  }
  if (chunk.count > 0 && (chunk.minTime !== min || chunk.maxTime !== max)) {
    throw new ChunkRecordError(`${what} says its times span [${chunk.minTime}, ${chunk.maxTime}] but they span [${min}, ${max}]`);
  }
}

/** Ends that never go back nor past the bytes, whole UTF-16 units for `utf16le`, and only ASCII bytes for `latin1`. */
function checkPacked(packed: PackedStrings, what: string): void {
  const { ends, bytes } = packed;
  let previous = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i];
    if (end < previous || end > bytes.length)
      throw new ChunkRecordError(`${what} string ${i} ends at ${end}, outside [${previous}, ${bytes.length}]`);
    if (packed.encoding === 'utf16le' && end % 2 !== 0) throw new ChunkRecordError(`${what} string ${i} ends inside a UTF-16 unit`);
    previous = end;
  }
  if (packed.encoding === 'latin1' && !isAscii(bytes.subarray(0, previous)))
    throw new ChunkRecordError(`${what} is marked ASCII but holds other bytes`);
}

function checkField(field: ChunkField, count: number, what: string): void {
  const { rows } = field;
  if (rows !== null) {
    if (rows.length > count) throw new ChunkRecordError(`${what} has ${rows.length} rows of ${count}`);
    for (let i = 0; i < rows.length; i++) {
      if (rows[i] >= count || (i > 0 && rows[i] <= rows[i - 1]))
        throw new ChunkRecordError(`${what} entry ${i} is in row ${rows[i]}, not after the previous entry's and below ${count}`);
    }
  }
  const entries = rows === null ? count : rows.length;
  const holds = (numbers: boolean, codes: boolean, mixed: boolean): boolean =>
    (field.numbers !== null) === numbers &&
    (field.codes !== null) === codes &&
    (field.dict !== null) === codes &&
    (field.mixed !== null) === mixed;
  const length = (values: { length: number }): void => {
    if (values.length !== entries) throw new ChunkRecordError(`${what} holds ${values.length} values for ${entries} entries`);
  };
  switch (field.type) {
    case 'string': {
      if (!holds(false, true, false)) throw new ChunkRecordError(`${what} is of strings without codes and a dictionary alone`);
      const codes = field.codes as Uint32Array;
      const dict = field.dict as PackedStrings;
      length(codes);
      checkPacked(dict, `${what} dictionary`);
      for (let i = 0; i < codes.length; i++) {
        if (codes[i] >= dict.ends.length)
          throw new ChunkRecordError(`${what} entry ${i} has code ${codes[i]} of a dictionary of ${dict.ends.length}`);
      }
      return;
    }
    case 'number':
    case 'boolean': {
      if (!holds(true, false, false)) throw new ChunkRecordError(`${what} is of ${field.type}s without numbers alone`);
      const numbers = field.numbers as Float64Array;
      length(numbers);
      for (let i = 0; i < numbers.length; i++) {
        const value = numbers[i];
        const valid = field.type === 'number' ? Number.isFinite(value) : value === 0 || value === 1;
        if (!valid)
          throw new ChunkRecordError(
            `${what} entry ${i} holds ${value}, not a ${field.type === 'number' ? 'finite number' : 'boolean (0 or 1)'}`,
          );
      }
      return;
    }
    case 'mixed': {
      if (!holds(false, false, true)) throw new ChunkRecordError(`${what} is of mixed values without the values alone`);
      const values = field.mixed as unknown[];
      length(values);
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        if (!(typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))) {
          throw new ChunkRecordError(`${what} entry ${i} is not a string, a finite number or a boolean`);
        }
      }
    }
  }
}
