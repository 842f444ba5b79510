/**
 * Builds event chunks (event-chunk.ts) from values given as UTF-8 bytes, for parsers that scan a
 * request body without making a JS object or string per event (node/ingest/native-scan.ts).
 *
 * The chunk it builds is the one ChunkBuilder would build from the same events: fields in order of
 * their first non-null value, strings dictionary-coded in order of first appearance, `_raw` packed.
 * Callers only hand it well-formed UTF-8 (no lone surrogates), so packed text is `latin1` when every
 * byte is ASCII and `utf8` otherwise.
 */
import type { FieldValue } from '../core/event';
import type { ChunkField, EventChunk, PackedStrings } from './event-chunk';
import type { PartitionKey } from '../core/partition';
import { doubledSlots } from '../core/open-slots';

/** Copies bytes; a loop beats a native call for the short values that dominate. */
function copyBytes(target: Buffer, at: number, source: Buffer, start: number, end: number): void {
  if (end - start < 32) {
    for (let i = start; i < end; i++) target[at++] = source[i];
  } else {
    source.copy(target, at, start, end);
  }
}

/**
 * V8 keeps a typed array of at most 64 bytes inside the JS heap; taking a view of one (subarray)
 * moves it out, which costs as much as a buffer of its own. Small arrays are copied instead.
 */
const ON_HEAP_BYTES = 64;

/** The first `n` elements of `array`: itself, a copy when small, else a view. */
function head<T extends Float64Array | Uint32Array>(array: T, n: number): T {
  if (n === array.length) return array;
  return (array.byteLength <= ON_HEAP_BYTES ? array.slice(0, n) : array.subarray(0, n)) as T;
}

function grownFloat64(array: Float64Array, need: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(Math.max(need, array.length * 2));
  next.set(array);
  return next;
}

function grownUint32(array: Uint32Array, need: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(Math.max(need, array.length * 2));
  next.set(array);
  return next;
}

/** A growing list of byte strings, packed as PackedStrings when built. */
export class ByteStringList {
  private bytes: Buffer;
  private used = 0;
  private ends: Uint32Array;
  private entries = 0;
  /** 0x80 once a string that is not all ASCII was added (the callers say so), else 0. */
  private high = 0;

  constructor(bytesHint = 256, entriesHint = 16) {
    this.bytes = Buffer.allocUnsafe(bytesHint);
    this.ends = new Uint32Array(entriesHint);
  }

  get count(): number {
    return this.entries;
  }

  /** Adds bytes `[start, end)` of `source` as the next string. */
  push(source: Buffer, start: number, end: number, ascii: boolean): void {
    copyBytes(this.reserve(end - start), this.used, source, start, end);
    this.commit(end - start, ascii);
  }

  /**
   * For writers that produce the next string in place (an unescaper): the buffer, with room for
   * `length` bytes at `writeOffset`. `commit` then ends the string.
   */
  reserve(length: number): Buffer {
    if (this.used + length > this.bytes.length) {
      const next = Buffer.allocUnsafe(Math.max(this.used + length, this.bytes.length * 2));
      this.bytes.copy(next, 0, 0, this.used);
      this.bytes = next;
    }
    return this.bytes;
  }

  get writeOffset(): number {
    return this.used;
  }

  /** Ends the string of `length` bytes written at `writeOffset`. */
  commit(length: number, ascii: boolean): void {
    this.used += length;
    if (this.entries === this.ends.length) this.ends = grownUint32(this.ends, this.entries + 1);
    this.ends[this.entries++] = this.used;
    if (!ascii) this.high = 0x80;
  }

  /** Whether string i holds exactly bytes `[start, end)` of `source`. */
  equals(i: number, source: Buffer, start: number, end: number): boolean {
    const from = i === 0 ? 0 : this.ends[i - 1];
    if (this.ends[i] - from !== end - start) return false;
    const bytes = this.bytes;
    for (let k = 0; k < end - start; k++) if (bytes[from + k] !== source[start + k]) return false;
    return true;
  }

  /** The byte length of string i. */
  byteLength(i: number): number {
    return this.ends[i] - (i === 0 ? 0 : this.ends[i - 1]);
  }

  /** String i as JS text. */
  text(i: number): string {
    const from = i === 0 ? 0 : this.ends[i - 1];
    return this.bytes.toString(this.high === 0 ? 'latin1' : 'utf8', from, this.ends[i]);
  }

  /** The strings, as views of the list's buffers (see ByteChunkBuilder.build). */
  build(): PackedStrings {
    return {
      bytes: this.bytes.subarray(0, this.used),
      ends: head(this.ends, this.entries),
      encoding: this.high === 0 ? 'latin1' : 'utf8',
    };
  }
}

/**
 * Distinct byte strings and their codes (order of first appearance), found without making JS
 * strings. Callers hash the bytes (any unsigned 32-bit hash, the same one for every call; a
 * negative one would never match its stored copy): a parser can hash a value in the pass that
 * reads it.
 */
export class ByteDictionary {
  readonly entries: ByteStringList;
  private hashes: Uint32Array;
  /** Open addressing: code + 1, 0 for an empty slot. */
  private slots: Int32Array;

  /** Hints: the entries and bytes expected (each doubling rehashes or copies what is held). */
  constructor(entriesHint = 16, bytesHint = 256) {
    this.entries = new ByteStringList(bytesHint, entriesHint);
    this.hashes = new Uint32Array(entriesHint);
    // Small hints stay small: a request spread over many keys makes a dictionary per field and key.
    this.slots = new Int32Array(2 ** Math.max(3, Math.ceil(Math.log2(entriesHint * 2 + 1))));
  }

  get size(): number {
    return this.entries.count;
  }

  codeOf(source: Buffer, start: number, end: number, ascii: boolean, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot];
      if (held === 0) {
        const code = this.entries.count;
        this.entries.push(source, start, end, ascii);
        if (code === this.hashes.length) this.hashes = grownUint32(this.hashes, code + 1);
        this.hashes[code] = hash;
        this.slots[slot] = code + 1;
        if ((code + 1) * 2 > this.slots.length) this.slots = doubledSlots(this.slots, this.hashes, code + 1);
        return code;
      }
      if (this.hashes[held - 1] === hash && this.entries.equals(held - 1, source, start, end)) return held - 1;
    }
  }
}

const STRING = 1;
const NUMBER = 2;
const BOOLEAN = 4;

/** A field's entry arrays, in one buffer: a request of several partitions makes a field builder per chunk, and each allocation costs. */
interface EntryArrays {
  values: Float64Array;
  rows: Uint32Array;
  /** Per entry: STRING, NUMBER or BOOLEAN (read only when the types mix). */
  kinds: Uint8Array;
}

/** Entry arrays of `capacity`, holding the first `count` entries of `from` when given. */
function entryArrays(capacity: number, from: EntryArrays | null, count: number): EntryArrays {
  let arrays: EntryArrays;
  if (capacity * 8 <= ON_HEAP_BYTES) {
    // Arrays in the JS heap: a buffer of their own would cost more than these few entries.
    arrays = { values: new Float64Array(capacity), rows: new Uint32Array(capacity), kinds: new Uint8Array(capacity) };
  } else {
    const buffer = new ArrayBuffer(capacity * 13);
    arrays = {
      values: new Float64Array(buffer, 0, capacity),
      rows: new Uint32Array(buffer, capacity * 8, capacity),
      kinds: new Uint8Array(buffer, capacity * 12, capacity),
    };
  }
  if (from !== null) {
    for (let i = 0; i < count; i++) {
      arrays.values[i] = from.values[i];
      arrays.rows[i] = from.rows[i];
      arrays.kinds[i] = from.kinds[i];
    }
  }
  return arrays;
}

/** One field's values in row order: string entries hold their dictionary code. */
export class ByteFieldBuilder {
  /** The last row given a value: a second value in one row is a caller's bug (or a duplicate key to refuse). */
  lastRow = -1;
  private rows: Uint32Array;
  private values: Float64Array;
  private kinds: Uint8Array;
  private entries = 0;
  private types = 0;
  /** Made on the first string: a field of numbers needs none. */
  private dict: ByteDictionary | null = null;
  private readonly entriesHint: number;

  /** `entriesHint`: the values expected (growing by doubling costs copies and garbage). */
  constructor(
    readonly name: string,
    entriesHint = 16,
  ) {
    ({ rows: this.rows, values: this.values, kinds: this.kinds } = entryArrays(Math.max(1, entriesHint), null, 0));
    this.entriesHint = entriesHint;
  }

  private add(row: number, value: number, kind: number): void {
    const at = this.entries;
    if (at === this.rows.length) {
      const held = { values: this.values, rows: this.rows, kinds: this.kinds };
      ({ rows: this.rows, values: this.values, kinds: this.kinds } = entryArrays(at * 2, held, at));
    }
    this.rows[at] = row;
    this.values[at] = value;
    this.kinds[at] = kind;
    this.entries = at + 1;
    this.types |= kind;
    this.lastRow = row;
  }

  /** A string value as bytes, with their hash (see ByteDictionary). */
  addString(row: number, source: Buffer, start: number, end: number, ascii: boolean, hash: number): void {
    if (this.dict === null) {
      const distinct = Math.min(16, Math.max(1, this.entriesHint));
      this.dict = new ByteDictionary(distinct, distinct * 16);
    }
    this.add(row, this.dict.codeOf(source, start, end, ascii, hash), STRING);
  }

  /** A finite number (the caller drops non-finite ones, as ChunkBuilder does). */
  addNumber(row: number, value: number): void {
    this.add(row, value, NUMBER);
  }

  addBoolean(row: number, value: boolean): void {
    this.add(row, value ? 1 : 0, BOOLEAN);
  }

  build(count: number): ChunkField {
    const n = this.entries;
    const field: ChunkField = {
      name: this.name,
      rows: n === count ? null : head(this.rows, n),
      type: 'mixed',
      numbers: null,
      codes: null,
      dict: null,
      mixed: null,
    };
    if (this.types === STRING) {
      field.type = 'string';
      const codes = new Uint32Array(n);
      for (let i = 0; i < n; i++) codes[i] = this.values[i];
      field.codes = codes;
      field.dict = this.dict!.entries.build();
    } else if (this.types === NUMBER || this.types === BOOLEAN) {
      field.type = this.types === NUMBER ? 'number' : 'boolean';
      field.numbers = head(this.values, n);
    } else {
      const dict = this.dict;
      const strings = dict === null ? [] : Array.from({ length: dict.size }, (_, code) => dict.entries.text(code));
      const mixed: FieldValue[] = new Array<FieldValue>(n);
      for (let i = 0; i < n; i++) {
        const kind = this.kinds[i];
        mixed[i] = kind === STRING ? strings[this.values[i]] : kind === NUMBER ? this.values[i] : this.values[i] === 1;
      }
      field.mixed = mixed;
    }
    return field;
  }
}

/** The rows of one partition key. */
export class ByteChunkBuilder {
  readonly raws: ByteStringList;
  private times: Float64Array;
  private rows = 0;
  private minTime = Number.POSITIVE_INFINITY;
  private maxTime = Number.NEGATIVE_INFINITY;
  private readonly fields = new Map<string, ByteFieldBuilder>();

  /** `rowsHint`: the rows expected; fields are sized for them too (most fields are in most rows). */
  constructor(
    readonly key: PartitionKey,
    private readonly rowsHint = 1024,
  ) {
    this.times = new Float64Array(rowsHint);
    this.raws = new ByteStringList(rowsHint * 128, rowsHint);
  }

  get count(): number {
    return this.rows;
  }

  /** Starts a row with its time; the caller adds its `_raw` to `raws` (once). Returns the row number for the field values. */
  addRow(time: number): number {
    const row = this.rows;
    if (row === this.times.length) this.times = grownFloat64(this.times, row + 1);
    this.times[row] = time;
    this.rows = row + 1;
    if (time < this.minTime) this.minTime = time;
    if (time > this.maxTime) this.maxTime = time;
    return row;
  }

  /** The builder of a field, if any row gave it a value. */
  existingField(name: string): ByteFieldBuilder | undefined {
    return this.fields.get(name);
  }

  /** The builder of a field, created (and ordered last) on its first value. */
  field(name: string): ByteFieldBuilder {
    let builder = this.fields.get(name);
    if (builder === undefined) {
      builder = new ByteFieldBuilder(name, this.rowsHint);
      this.fields.set(name, builder);
    }
    return builder;
  }

  /**
   * The chunk, its arrays views of the builder's buffers (which are larger than the rows): for
   * serializing into a chunk record, which copies them, not for keeping. Copying here as well
   * cost a second copy of every body's text.
   */
  build(): EventChunk {
    const count = this.rows;
    return {
      key: this.key,
      count,
      minTime: this.minTime,
      maxTime: this.maxTime,
      times: head(this.times, count),
      raws: this.raws.build(),
      fields: [...this.fields.values()].map((builder) => builder.build(count)),
    };
  }
}
