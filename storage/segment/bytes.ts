/**
 * Byte-level helpers of the column codec: a growable writer, a reader, unsigned varints for
 * values up to 2^53, zigzag, and null bitmaps. Typed-array sections are written in the platform
 * byte order; we require little-endian (every platform Node ships for) and check it once.
 */
import { endianness } from 'os';

if (endianness() !== 'LE') throw new Error('trawl segment codec requires a little-endian platform');

export class ByteWriter {
  buf: Buffer;
  pos = 0;

  constructor(capacity = 1024) {
    this.buf = Buffer.allocUnsafe(Math.max(16, capacity));
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  /** Unsigned varint (LEB128) of an integer in [0, 2^53). */
  varint(v: number): void {
    this.ensure(8);
    const buf = this.buf;
    let pos = this.pos;
    if (v < 0x80000000) {
      while (v > 127) {
        buf[pos++] = (v & 127) | 128;
        v >>>= 7;
      }
    } else {
      if (pos + 10 > buf.length) {
        this.ensure(10);
        return this.varint(v);
      }
      while (v > 127) {
        buf[pos++] = (v % 128) | 128;
        v = Math.floor(v / 128);
      }
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  /** Pads with zeros so the next write starts at a multiple of `n` bytes. */
  align(n: number): void {
    const pad = (n - (this.pos % n)) % n;
    this.ensure(pad);
    this.buf.fill(0, this.pos, this.pos + pad);
    this.pos += pad;
  }

  bytes(src: Uint8Array): void {
    this.ensure(src.length);
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }

  /** Writes a typed array's bytes (aligned to its element size first). */
  typed(arr: Int8Array | Int16Array | Int32Array | Float64Array | Uint8Array | Uint16Array | Uint32Array): void {
    this.align(arr.BYTES_PER_ELEMENT);
    this.bytes(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength));
  }

  /** The bytes written (a view, not a copy). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

export class ByteReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    pos = 0,
  ) {
    this.pos = pos;
  }

  u8(): number {
    if (this.pos >= this.buf.length) throw new Error('segment block truncated');
    return this.buf[this.pos++];
  }

  /**
   * Reads `count` varints into `out`, each minus `bias`: one loop with the position in a local,
   * for long runs of small numbers (a string list's lengths). Values must fit in 31 bits.
   */
  varintsInto(out: Int32Array, count: number, bias: number): void {
    const buf = this.buf;
    const length = buf.length;
    let pos = this.pos;
    for (let i = 0; i < count; i++) {
      if (pos >= length) throw new Error('segment block truncated');
      let b = buf[pos++];
      let v = b & 127;
      // A running power of 128: `2 ** shift` here cost more than the rest of the loop.
      let scale = 128;
      while (b > 127) {
        if (pos >= length) throw new Error('segment block truncated');
        if (scale > 2 ** 28) throw new Error('segment block: varint too long for a length');
        b = buf[pos++];
        v += (b & 127) * scale;
        scale *= 128;
      }
      out[i] = v - bias;
    }
    this.pos = pos;
  }

  varint(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos >= buf.length) throw new Error('segment block truncated');
    let b = buf[pos++];
    let v = b & 127;
    let shift = 7;
    while (b > 127) {
      if (pos >= buf.length) throw new Error('segment block truncated');
      b = buf[pos++];
      // Bitwise ops stay exact up to 28 bits of payload; beyond that, multiply.
      if (shift < 28) v |= (b & 127) << shift;
      else v += (b & 127) * 2 ** shift;
      shift += 7;
    }
    this.pos = pos;
    return v;
  }

  align(n: number): void {
    this.pos += (n - (this.pos % n)) % n;
  }

  /** A view of the next `n` bytes. */
  take(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error('segment block truncated');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** Zigzag of an integer in (-2^52, 2^52): 0, -1, 1, -2 -> 0, 1, 2, 3 (exact in float64). */
export function zigzag(v: number): number {
  return v >= 0 ? v * 2 : -v * 2 - 1;
}

export function unzigzag(z: number): number {
  // z % 2 instead of z & 1: z may exceed 2^32.
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/** True when `v` is an integer whose varint path above stays exact. */
export function isSafeUint(v: number): boolean {
  return Number.isInteger(v) && v >= 0 && v < 2 ** 53;
}

/** Packs `flags[start..end)` (non-zero = set) into ceil(n/8) bytes, bit i of byte i>>3 for row i. */
export function packBits(flags: Uint8Array, start: number, end: number): Uint8Array {
  const n = end - start;
  const out = new Uint8Array((n + 7) >>> 3);
  for (let i = 0; i < n; i++) if (flags[start + i] !== 0) out[i >>> 3] |= 1 << (i & 7);
  return out;
}

/** Unpacks `n` bits into one byte (0/1) per row. */
export function unpackBits(bits: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (bits[i >>> 3] >>> (i & 7)) & 1;
  return out;
}

/**
 * Byte planes: `count` non-negative integers below 2^(8 * width) (width 0..7; values < 2^53)
 * written as `width` runs of `count` bytes, least significant plane first. zstd sees each byte
 * position as its own stream (the high planes of skewed or narrow values are nearly constant),
 * which compresses integer columns far better than interleaved little-endian words.
 */
export function writePlanes(w: ByteWriter, values: ArrayLike<number>, count: number, width: number): void {
  w.ensure(count * width);
  const buf = w.buf;
  const at = w.pos;
  for (let i = 0; i < count; i++) {
    const v = values[i];
    let lo = v >>> 0;
    let hi = v > 0xffffffff ? Math.floor(v / 4294967296) : 0;
    for (let k = 0; k < width; k++) {
      buf[at + k * count + i] = k < 4 ? lo & 255 : hi & 255;
      if (k < 4) lo >>>= 8;
      else hi >>>= 8;
    }
  }
  w.pos = at + count * width;
}

/** Reads byte planes written by writePlanes: `out[i] = base + value_i * scale`. */
export function readPlanes(r: ByteReader, count: number, width: number, out: Float64Array, base = 0, scale = 1): void {
  const planes = r.take(count * width);
  if (width === 1) {
    for (let i = 0; i < count; i++) out[i] = base + planes[i] * scale;
    return;
  }
  if (width === 2) {
    for (let i = 0; i < count; i++) out[i] = base + (planes[i] | (planes[count + i] << 8)) * scale;
    return;
  }
  if (width === 3) {
    const c2 = 2 * count;
    for (let i = 0; i < count; i++) out[i] = base + (planes[i] | (planes[count + i] << 8) | (planes[c2 + i] << 16)) * scale;
    return;
  }
  for (let i = 0; i < count; i++) out[i] = base + planeValueAt(planes, count, width, i) * scale;
}

/** The value at index `i` of byte planes taken whole (`count` values of `width` bytes): one value, not all. */
export function planeValueAt(planes: Uint8Array, count: number, width: number, i: number): number {
  let v = 0;
  for (let k = width - 1; k >= 0; k--) v = v * 256 + planes[k * count + i];
  return v;
}

/** Bytes needed for non-negative integers up to `max` (< 2^53): 0 when max is 0. */
export function planeWidth(max: number): number {
  let width = 0;
  while (width < 7 && max >= 2 ** (8 * width)) width++;
  return width;
}
