/**
 * A framed column block: the rows of one row block cut into consecutive frames, each frame a
 * whole stored block (block-envelope.ts, compressed on its own), so that a reader decompresses
 * only the frames it needs. `_raw` is framed, and each frame has its own bloom filter of its
 * tokens (bloom.ts), so a rare search term decompresses about a quarter of a row block's text.
 *
 *   u8      encoding   ColumnEncoding.Framed
 *   u8      compression 0 (the frames are compressed, the frame table is tiny)
 *   varint  rows
 *   varint  frame count
 *   per frame: varint rows, varint bytes
 *   frames, concatenated
 */
import { ColumnEncoding } from './block-envelope';
import { ByteReader, ByteWriter } from './bytes';

/**
 * Rows per frame: smaller frames let a needle search inflate less text, larger ones compress
 * better; a common term decodes whole frames, and Node copies texts under 1 MB into the V8 heap
 * at a cost external strings of larger ones avoid. 4,096 balances the three
 * (figures: docs/benchmarks.md, "Figures behind the constants").
 */
export const FRAME_ROWS = 4096;

/**
 * Rows of a block's newest frame. Frames double from the newest end up to FRAME_ROWS (256, 512,
 * 1,024, 2,048, then 4,096s), because the commonest query reads the newest rows: a `head` over
 * the newest blocks of many segments (a cluster node's partitions of one bucket) inflates about as
 * many lines as it keeps, not a whole frame of each, while most of a block still compresses in
 * whole frames.
 */
export const NEWEST_FRAME_ROWS = 256;

/**
 * The frames of a block of `rows` rows, oldest first, or null when the block is stored whole (at
 * most two newest frames' worth of rows). An oldest remainder shorter than a newest frame joins
 * the frame after it.
 */
export function frameSizes(rows: number): number[] | null {
  if (rows <= 2 * NEWEST_FRAME_ROWS) return null;
  const newestFirst: number[] = [];
  let left = rows;
  for (let size = NEWEST_FRAME_ROWS; left > 0; size = Math.min(2 * size, FRAME_ROWS)) {
    const take = Math.min(size, left);
    newestFirst.push(take);
    left -= take;
  }
  const oldest = newestFirst.length - 1;
  if (newestFirst[oldest] < NEWEST_FRAME_ROWS) newestFirst[oldest - 1] += newestFirst.pop()!;
  return newestFirst.reverse();
}

export interface Frame {
  rows: number;
  /** A whole stored block (any encoding but Framed). */
  data: Uint8Array;
}

export function sealFramed(frames: readonly Frame[]): Buffer {
  const head = new ByteWriter(16 + frames.length * 8);
  head.u8(ColumnEncoding.Framed);
  head.u8(0);
  head.varint(frames.reduce((sum, frame) => sum + frame.rows, 0));
  head.varint(frames.length);
  for (const frame of frames) {
    head.varint(frame.rows);
    head.varint(frame.data.length);
  }
  const h = head.finish();
  return Buffer.concat([h, ...frames.map((frame) => Buffer.from(frame.data.buffer, frame.data.byteOffset, frame.data.length))]);
}

/** The frames of a framed block, as views into it. */
export function openFramed(block: Uint8Array): { rows: number; frames: Frame[] } {
  const r = new ByteReader(block);
  if (r.u8() !== ColumnEncoding.Framed) throw new Error('segment block: not a framed block');
  if (r.u8() !== 0) throw new Error('segment block: a framed block is not compressed as a whole');
  const rows = r.varint();
  const count = r.varint();
  const sizes: { rows: number; bytes: number }[] = [];
  for (let f = 0; f < count; f++) sizes.push({ rows: r.varint(), bytes: r.varint() });
  let total = 0;
  const frames = sizes.map(({ rows: frameRows, bytes }) => {
    total += frameRows;
    return { rows: frameRows, data: r.take(bytes) };
  });
  if (total !== rows || r.pos !== block.length) throw new Error('segment block: bad frame table');
  return { rows, frames };
}
