/**
 * The envelope of one stored column block: a tiny uncompressed header, then the payload, zstd
 * compressed when that pays off.
 *
 *   u8      encoding   (ColumnEncoding)
 *   u8      compression (0 = none, 1 = zstd)
 *   varint  rows
 *   varint  payload length before compression (only when compressed)
 *   ...     payload
 *
 * Decoding hands back the payload in a fresh buffer that starts at offset 0 of its own
 * ArrayBuffer, so typed-array sections (aligned within the payload) can be viewed without a copy.
 * Uses one zstd context per thread (module state), so it works inside worker_threads.
 */
import binding = require('zstd-napi/binding');
import { ByteReader, ByteWriter } from './bytes';
import { cachedPayload } from './payload-cache';

export enum ColumnEncoding {
  /** Every row null; no payload. Decodes to ConstColumn { value: null }. */
  AllNull = 0,
  /** First value + zigzag varint deltas of integral microseconds. */
  TimeDelta = 1,
  /** Raw float64 times (non-integral or out-of-range times; never written for valid events). */
  TimeFloat = 2,
  /** Integers in int8/int16/int32 width + optional null bitmap. */
  NumberInt = 3,
  /** float64 values + optional null bitmap. */
  NumberFloat = 4,
  Boolean = 5,
  /** Sorted dictionary of distinct strings + codes (0 = null). */
  Dict = 6,
  /** Per-row lengths + one text blob. */
  String = 7,
  /** JSON array of values (rows whose types disagree). */
  Mixed = 8,
  /**
   * First value (float64) + uint32 deltas of sorted integral microseconds: the common case;
   * fixed width decodes as a tight prefix sum, and zstd removes the zero high bytes.
   */
  TimeDelta32 = 9,
  /**
   * Consecutive row ranges (frames), each a whole stored block of its own (framed-block.ts): a
   * reader decodes only the frames it needs. Used for `_raw`, whose frames have bloom filters.
   */
  Framed = 10,
  /**
   * First value (float64), varint scale (the deltas' greatest common divisor), u8 width, then the
   * sorted deltas divided by the scale as byte planes (bytes.ts writePlanes): millisecond times
   * stored in microseconds take one byte per row before zstd.
   */
  TimeScaled = 11,
  /**
   * Integers (all within +-2^53, no -0): u8 flags (bit 0: null bitmap follows), the bitmap, the
   * minimum (float64), u8 width, then value - minimum of the non-null rows only, as byte planes.
   */
  NumberPacked = 12,
  /**
   * Short ASCII strings that all share one skeleton of literal text around decimal numbers
   * (`u12345`, `10.0.2.246`, `web-7`): u8 flags (bit 0: null bitmap), the bitmap, varint hole
   * count H, H + 1 literals (varint length + bytes), then per hole: varint minimum, u8 width and
   * number - minimum of the non-null rows as byte planes. Numbers have no leading zeros.
   */
  StringTemplate = 13,
  /**
   * Hex strings of one even length, all lower or all upper case (request and trace ids): u8 flags
   * (bit 0: null bitmap, bit 1: upper case), the bitmap, varint length in characters, then the
   * non-null values as bytes (half the characters).
   */
  HexString = 14,
  /**
   * `_raw` skeletons: the lines with the parts that are their own field values replaced by
   * references to those fields' columns (raw-refs.ts). Decoding needs the block's field columns.
   */
  RawRefs = 15,
}

const COMPRESSION_NONE = 0;
const COMPRESSION_ZSTD = 1;
/** Below this many payload bytes zstd's frame overhead eats the gain. */
const MIN_COMPRESS_BYTES = 64;
/** Scratch buffers above this are not kept between calls. */
const MAX_SCRATCH_BYTES = 16 * 1024 * 1024;

let cctx: binding.CCtx | null = null;
let dctx: binding.DCtx | null = null;
let scratch: Buffer | null = null;

export interface BlockHeader {
  encoding: ColumnEncoding;
  rows: number;
}

/** Wraps a payload into a stored block, compressing it at `level` when that makes it smaller. */
export function sealBlock(encoding: ColumnEncoding, rows: number, payload: Uint8Array, level: number): Buffer {
  const head = new ByteWriter(24);
  head.u8(encoding);
  let body: Uint8Array = payload;
  let compression = COMPRESSION_NONE;
  if (payload.length >= MIN_COMPRESS_BYTES) {
    const bound = binding.compressBound(payload.length);
    let dst = scratch;
    if (dst === null || dst.length < bound) {
      dst = Buffer.allocUnsafeSlow(bound);
      if (bound <= MAX_SCRATCH_BYTES) scratch = dst;
    }
    cctx ??= new binding.CCtx();
    const n = cctx.compress(dst, payload, level);
    if (n < payload.length) {
      body = dst.subarray(0, n);
      compression = COMPRESSION_ZSTD;
    }
  }
  head.u8(compression);
  head.varint(rows);
  if (compression === COMPRESSION_ZSTD) head.varint(payload.length);
  const h = head.finish();
  const out = Buffer.allocUnsafe(h.length + body.length);
  out.set(h, 0);
  out.set(body, h.length);
  return out;
}

/** The same block compressed at another zstd level: its payload, and so its values, unchanged. */
export function resealBlock(block: Uint8Array, level: number): Buffer {
  const { encoding, rows, payload } = openBlockTransient(block);
  return sealBlock(encoding, rows, payload, level);
}

/** Reads a block's header without touching its payload. */
export function readBlockHeader(block: Uint8Array): BlockHeader {
  const r = new ByteReader(block);
  const encoding = r.u8() as ColumnEncoding;
  r.u8();
  return { encoding, rows: r.varint() };
}

/** An opened block. `cached`: the payload is a cached one (payload-cache.ts), the same object each time the block is opened. */
export type OpenedBlock = BlockHeader & { payload: Buffer; cached: boolean };

/** Opens a stored block: its header and its (decompressed) payload, in a buffer of its own. */
export function openBlock(block: Uint8Array): OpenedBlock {
  return openInto(block, (size) => Buffer.allocUnsafeSlow(size), false);
}

let transient: Buffer | null = null;

/**
 * openBlock into a scratch buffer of this thread, valid until the next call: for a reader that
 * copies out what it keeps (fresh multi-megabyte buffers cost their page faults on every block)
 * and writes nothing into it (a cached payload, payload-cache.ts, is handed out as it is).
 */
export function openBlockTransient(block: Uint8Array): OpenedBlock {
  return openInto(
    block,
    (size) => {
      if (transient === null || transient.length < size) {
        const buffer = Buffer.allocUnsafeSlow(size);
        if (size > MAX_SCRATCH_BYTES) return buffer;
        transient = buffer;
      }
      return transient.subarray(0, size);
    },
    true,
  );
}

/** `shared`: the caller only reads the payload, so a cached one needs no copy. */
function openInto(block: Uint8Array, allocate: (size: number) => Buffer, shared: boolean): OpenedBlock {
  const r = new ByteReader(block);
  const encoding = r.u8() as ColumnEncoding;
  const compression = r.u8();
  const rows = r.varint();
  let payload: Buffer;
  if (compression === COMPRESSION_ZSTD) {
    const size = r.varint();
    const compressed = block.subarray(r.pos);
    const cached = cachedPayload(block, size, (into) => decompressInto(into, compressed));
    if (cached !== undefined) {
      if (shared) return { encoding, rows, payload: cached, cached: true };
      payload = allocate(size);
      cached.copy(payload);
      return { encoding, rows, payload, cached: false };
    }
    payload = allocate(size);
    decompressInto(payload, compressed);
  } else if (compression === COMPRESSION_NONE) {
    payload = allocate(block.length - r.pos);
    payload.set(block.subarray(r.pos));
  } else {
    throw new Error(`segment block: unknown compression ${compression}`);
  }
  return { encoding, rows, payload, cached: false };
}

function decompressInto(payload: Buffer, compressed: Uint8Array): void {
  dctx ??= new binding.DCtx();
  const got = dctx.decompress(payload, compressed);
  if (got !== payload.length) throw new Error(`segment block: decompressed ${got} bytes, expected ${payload.length}`);
}
