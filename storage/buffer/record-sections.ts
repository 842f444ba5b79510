/**
 * The sections of a chunk record (chunk-record.ts): after the kind, the header length and the
 * header, typed arrays each 8-byte aligned. Both header formats place them alike; this reads them
 * as views into the record, each checked to be aligned and inside the record.
 */
import { ChunkRecordError } from './chunk-check';
import type { PackedStrings } from './event-chunk';

/** Arithmetic, not bit operations: a header length read from a record may pass 2^31. */
export const align8 = (n: number): number => Math.ceil(n / 8) * 8;

export class RecordSections {
  private readonly base: number;
  private readonly bytes: number;

  /** `start`: where the sections begin, from the record's start. */
  constructor(
    private readonly record: Uint8Array,
    start: number,
  ) {
    this.bytes = Math.max(0, record.byteLength - start);
    this.base = record.byteOffset + start;
  }

  private check(offset: number, length: number, size: number, what: () => string): void {
    if (offset % size !== 0) throw new ChunkRecordError(`${what()} starts at ${offset}, not a multiple of ${size}`);
    if (offset + length * size > this.bytes)
      throw new ChunkRecordError(
        `${what()} of ${length} x ${size} bytes at ${offset} passes the end of the record's ${this.bytes} bytes of sections`,
      );
  }

  u8(offset: number, length: number, what: () => string): Uint8Array {
    this.check(offset, length, 1, what);
    return new Uint8Array(this.record.buffer, this.base + offset, length);
  }

  u32(offset: number, length: number, what: () => string): Uint32Array {
    this.check(offset, length, 4, what);
    return new Uint32Array(this.record.buffer, this.base + offset, length);
  }

  f64(offset: number, length: number, what: () => string): Float64Array {
    this.check(offset, length, 8, what);
    return new Float64Array(this.record.buffer, this.base + offset, length);
  }

  packed(
    bytes: number,
    bytesLength: number,
    ends: number,
    endsLength: number,
    encoding: PackedStrings['encoding'],
    what: () => string,
  ): PackedStrings {
    return {
      bytes: this.u8(bytes, bytesLength, () => `${what()} bytes`),
      ends: this.u32(ends, endsLength, () => `${what()} ends`),
      encoding,
    };
  }
}

/**
 * Places arrays one after another, each 8-byte aligned, from offset 0 of the sections; `copies`
 * lists them with their offsets for the copy once the record is allocated.
 */
export class SectionLayout {
  end = 0;
  readonly arrays: ArrayBufferView[] = [];
  readonly offsets: number[] = [];

  place(array: ArrayBufferView): number {
    const at = align8(this.end);
    this.arrays.push(array);
    this.offsets.push(at);
    this.end = at + array.byteLength;
    return at;
  }

  /**
   * Copies every placed array into `record`, whose sections start at `base` (8-byte aligned):
   * through views of the record by element type, made once, since a view per array cost more
   * than the copy for the small arrays of a chunk per key.
   */
  copyInto(record: Buffer, base: number): void {
    const buffer = record.buffer;
    const start = record.byteOffset + base;
    const length = record.byteLength - base;
    const bytes = new Uint8Array(buffer, start, length);
    const words = new Uint32Array(buffer, start, Math.floor(length / 4));
    const doubles = new Float64Array(buffer, start, Math.floor(length / 8));
    for (let i = 0; i < this.arrays.length; i++) {
      const array = this.arrays[i];
      const at = this.offsets[i];
      if (array instanceof Float64Array) doubles.set(array, at / 8);
      else if (array instanceof Uint32Array) words.set(array, at / 4);
      else if (array instanceof Uint8Array) bytes.set(array, at);
      else bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    }
  }
}
