/**
 * A number comparison evaluated on a packed integer block's byte planes (column-encode.ts
 * NumberPacked): the comparison becomes a range of plane values, and rows are kept or dropped
 * without decoding the block into a Float64Array. `where status >= 500` over a 16,384-row block
 * reads 2 bytes a row instead of writing 8, and allocates nothing per block.
 *
 * The result equals comparing the decoded values (`min + v`, computed as the decoder computes
 * them) with the constant: null rows never pass, and a NaN constant passes nothing.
 */
import { planeValueAt, unpackBits } from './bytes';
import { openPackedTransient } from './column-decode';
import { postingsOf, selectByPostings } from './packed-postings';

export type RangeOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

function holds(op: RangeOp, value: number, constant: number): boolean {
  switch (op) {
    case '=':
    case '!=':
      return value === constant;
    case '<':
      return value < constant;
    case '<=':
      return value <= constant;
    case '>':
      return value > constant;
    case '>=':
      return value >= constant;
  }
}

/** The first plane value in [0, top] where the monotone `test` turns true (top + 1 when it never does). */
function firstTrue(top: number, test: (v: number) => boolean): number {
  let lo = 0;
  let hi = top + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (test(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The plane values [lo, hi] whose decoded value satisfies `op constant`, and whether the kept
 * rows are those outside it (`!=`). Decoded values grow with plane values, so each operator is a
 * single range.
 */
export function planeRange(op: RangeOp, min: number, width: number, constant: number): { lo: number; hi: number; outside: boolean } {
  const top = Math.min(2 ** (8 * width) - 1, Number.MAX_SAFE_INTEGER);
  const none = { lo: 1, hi: 0, outside: false };
  if (Number.isNaN(constant)) return none;
  const atLeast = (strict: boolean) => firstTrue(top, (v) => holds(strict ? '>' : '>=', min + v, constant));
  switch (op) {
    case '>':
    case '>=':
      return { lo: atLeast(op === '>'), hi: top, outside: false };
    case '<':
    case '<=':
      // Everything before the first value that fails: `< c` fails from the first value >= c.
      return { lo: 0, hi: atLeast(op === '<=') - 1, outside: false };
    case '=':
    case '!=': {
      const first = atLeast(false);
      const equal = first <= top && holds('=', min + first, constant);
      const range = equal ? { lo: first, hi: first } : { lo: 1, hi: 0 };
      return { ...range, outside: op === '!=' };
    }
  }
}

/**
 * Narrows `sel` (ascending batch rows; block row = batch row + `offset`) to the rows whose value
 * satisfies `op constant`, and returns the new count. Null when the block is not packed integers:
 * the caller decodes it and compares as usual.
 */
export function selectPacked(block: Uint8Array, op: RangeOp, constant: number, sel: Uint32Array, n: number, offset: number): number | null {
  const packed = openPackedTransient(block);
  if (packed === null) return null;
  const { min, width, count, planes } = packed;
  const nulls = packed.nullBits === null ? null : unpackBits(packed.nullBits, packed.rows);
  const { lo, hi, outside } = planeRange(op, min, width, constant);
  let kept = 0;
  if (nulls === null && width <= 2) {
    // The common case. Every value passes or none does when the range is empty or the block has
    // one value; else one loop per width, branch-free: the row is written, the count advances
    // only when it passes (a kept/dropped branch mispredicts on mixed blocks).
    if (lo > hi) return outside ? n : 0;
    const span = hi - lo;
    const flip = outside ? 1 : 0;
    if (width === 0) return (lo === 0) !== outside ? n : 0;
    // Ascending distinct rows from 0 to n - 1 are all rows: the loops need not read `sel`.
    const all = n > 0 && sel[0] === 0 && sel[n - 1] === n - 1;
    // A cached block of a few-valued field: visit only the passing rows when they are few.
    const postings = all && packed.cached !== null ? postingsOf(packed.cached, packed) : null;
    if (postings !== null) {
      const kept = selectByPostings(postings, lo, hi, outside, sel, n, offset);
      if (kept !== null) return kept;
    }
    if (width === 1) {
      if (all) {
        for (let i = 0; i < n; i++) {
          sel[kept] = i;
          kept += ((planes[i + offset] - lo) >>> 0 <= span ? 1 : 0) ^ flip;
        }
        return kept;
      }
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        sel[kept] = row;
        kept += ((planes[row + offset] - lo) >>> 0 <= span ? 1 : 0) ^ flip;
      }
      return kept;
    }
    const high = count + offset;
    if (all) {
      for (let i = 0; i < n; i++) {
        sel[kept] = i;
        kept += (((planes[i + offset] | (planes[high + i] << 8)) - lo) >>> 0 <= span ? 1 : 0) ^ flip;
      }
      return kept;
    }
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      sel[kept] = row;
      kept += (((planes[row + offset] | (planes[high + row] << 8)) - lo) >>> 0 <= span ? 1 : 0) ^ flip;
    }
    return kept;
  }
  // Walk the null bitmap along the ascending rows to find each row's dense position.
  let dense = 0;
  let scanned = 0;
  for (let i = 0; i < n; i++) {
    const row = sel[i];
    const at = row + offset;
    if (nulls !== null) {
      if (at < scanned) {
        dense = 0;
        scanned = 0;
      }
      for (; scanned < at; scanned++) dense += 1 - nulls[scanned];
      if (nulls[at] === 1) continue;
    }
    const v = planeValueAt(planes, count, width, nulls === null ? at : dense);
    if ((v >= lo && v <= hi) !== outside) sel[kept++] = row;
  }
  return kept;
}
