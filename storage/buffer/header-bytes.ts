/**
 * The little-endian fields of a chunk record's binary header (chunk-record.ts): a writer that
 * grows as it goes, and a reader that refuses to read past the header's end, so a header cut
 * short or lying about a length is refused by name, never read out of bounds.
 */
import { ChunkRecordError } from './chunk-check';

export class HeaderWriter {
  private bytes = Buffer.allocUnsafe(4096);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.at + n, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.at);
    this.bytes = next;
  }

  u8(value: number): void {
    this.room(1);
    this.bytes[this.at++] = value;
  }

  u32(value: number): void {
    this.room(4);
    this.at = this.bytes.writeUInt32LE(value, this.at);
  }

  f64(value: number): void {
    this.room(8);
    this.at = this.bytes.writeDoubleLE(value, this.at);
  }

  /** A string as its UTF-8 byte length and bytes. */
  text(value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.u32(length);
    this.room(length);
    this.at += this.bytes.write(value, this.at, length, 'utf8');
  }

  /** The bytes written, a view of the writer's buffer. */
  written(): Buffer {
    return this.bytes.subarray(0, this.at);
  }
}

type What = string | (() => string);

export class HeaderReader {
  private at: number;

  constructor(
    private readonly view: Buffer,
    start: number,
    private readonly end: number,
  ) {
    this.at = start;
  }

  /** `what` names the field read, for the error (a function when naming it costs). */
  private take(n: number, what: What): number {
    const at = this.at;
    if (at + n > this.end) throw new ChunkRecordError(`the header ends inside ${typeof what === 'string' ? what : what()}`);
    this.at = at + n;
    return at;
  }

  u8(what: What): number {
    return this.view[this.take(1, what)];
  }

  u32(what: What): number {
    return this.view.readUInt32LE(this.take(4, what));
  }

  f64(what: What): number {
    return this.view.readDoubleLE(this.take(8, what));
  }

  text(what: What): string {
    const length = this.u32(what);
    const at = this.take(length, what);
    return this.view.toString('utf8', at, at + length);
  }

  /** Throws unless every byte of the header was read. */
  finish(): void {
    if (this.at !== this.end) throw new ChunkRecordError(`the header holds ${this.end - this.at} bytes past its last chunk`);
  }
}
