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
