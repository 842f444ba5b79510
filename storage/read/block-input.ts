/**
 * One segment row block as a query worker receives it: the compressed buffers of the stored
 * columns (null for a column the segment lacks) and the little of the header that decoding needs.
 */
export interface BlockInput {
  index: string;
  /** The segment's id and the row block's number: with a column's name, they name a stored block for good. */
  segment: string;
  block: number;
  rows: number;
  stored: string[];
  buffers: (Uint8Array | null)[];
  /** The frames of a framed `_raw` that may match (null: all); the other frames' rows cannot. */
  rawFrames: number[] | null;
  /** Per entry of `rawFrames`: a raw token only the frame's skeletons can hold, or -1 (scan.ts SegmentUnit). */
  rawOwnTokens?: number[] | null;
  /** Positions in `stored` left out (null in `buffers`) because the worker holds them (query/exec/held-blocks.ts). */
  held?: number[];
}
