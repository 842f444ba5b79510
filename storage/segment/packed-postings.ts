/**
 * The rows of a cached packed integer block grouped by value, for a few-valued field (an HTTP
 * status, a numeric level): a comparison then visits the rows that pass, not every row of the
 * block. `where status >= 500` keeps ~5% of the rows; the plain loop (packed-select.ts) reads
 * two bytes of each of them all. Built once per cached payload (payload-cache.ts), by the first
 * comparison over it, and dropped with it.
 */
import type { PackedInts } from './column-decode';

/** Blocks with more distinct values than this get no postings (a latency, a byte count). */
const MAX_VALUES = 64;

export interface PackedPostings {
  /** The block's distinct plane values, ascending. */
  values: Int32Array;
  /** Group g's rows are rows[starts[g], starts[g + 1]), ascending. */
  starts: Uint32Array;
  rows: Uint16Array | Uint32Array;
}

const built = new WeakMap<Buffer, PackedPostings | null>();
/** Per plane value: a count, then a write position (width <= 2: values below 2^16). Kept all zero between calls. */
let tally: Uint32Array | null = null;
/** Selection bitmap scratch, kept all zero between calls. */
let bitmap = new Uint32Array(0);

/** The postings of a cached block's payload, or null when it has nulls, wide values or too many distinct ones. */
export function postingsOf(payload: Buffer, packed: PackedInts): PackedPostings | null {
  const known = built.get(payload);
  if (known !== undefined) return known;
  const postings = build(packed);
  built.set(payload, postings);
  return postings;
}

function build(packed: PackedInts): PackedPostings | null {
  const { nullBits, width, count, planes } = packed;
  if (nullBits !== null || width === 0 || width > 2) return null;
  tally ??= new Uint32Array(1 << 16);
  const counts = tally;
  const distinct: number[] = [];
  const valueAt = (i: number): number => (width === 1 ? planes[i] : planes[i] | (planes[count + i] << 8));
  for (let i = 0; i < count; i++) {
    const value = valueAt(i);
    if (counts[value]++ === 0) {
      distinct.push(value);
      if (distinct.length > MAX_VALUES) {
        for (const seen of distinct) counts[seen] = 0;
        return null;
      }
    }
  }
  distinct.sort((a, b) => a - b);
  const starts = new Uint32Array(distinct.length + 1);
  for (let g = 0; g < distinct.length; g++) {
    const size = counts[distinct[g]];
    starts[g + 1] = starts[g] + size;
    counts[distinct[g]] = starts[g]; // from here on: the group's next write position
  }
  const rows = count <= 1 << 16 ? new Uint16Array(count) : new Uint32Array(count);
  for (let i = 0; i < count; i++) rows[counts[valueAt(i)]++] = i;
  for (const value of distinct) counts[value] = 0;
  return { values: Int32Array.from(distinct), starts, rows };
}

/**
 * Writes to `sel` the batch rows (block row - `offset`, within [0, n)) whose plane value lies in
 * [lo, hi] (outside it with `outside`), ascending, and returns their count; null when more than
 * a quarter of the rows pass, where the plain loop costs no more.
 */
export function selectByPostings(
  postings: PackedPostings,
  lo: number,
  hi: number,
  outside: boolean,
  sel: Uint32Array,
  n: number,
  offset: number,
): number | null {
  const { values, starts, rows } = postings;
  let passing = 0;
  for (let g = 0; g < values.length; g++) {
    if ((values[g] >= lo && values[g] <= hi) !== outside) passing += starts[g + 1] - starts[g];
  }
  if (passing * 4 > n) return null;
  // The passing rows as bits, then read back in row order.
  const words = (rows.length + 31) >>> 5;
  if (bitmap.length < words) bitmap = new Uint32Array(words);
  const bits = bitmap;
  for (let g = 0; g < values.length; g++) {
    if ((values[g] >= lo && values[g] <= hi) === outside) continue;
    for (let j = starts[g]; j < starts[g + 1]; j++) {
      const row = rows[j];
      bits[row >>> 5] |= 1 << (row & 31);
    }
  }
  let kept = 0;
  const end = offset + n;
  for (let w = 0; w < words; w++) {
    let word = bits[w];
    if (word === 0) continue;
    bits[w] = 0;
    while (word !== 0) {
      const low = word & -word;
      const row = (w << 5) + 31 - Math.clz32(low);
      word ^= low;
      if (row >= offset && row < end) sel[kept++] = row - offset;
    }
  }
  return kept;
}
