/**
 * A block's null bitmap as stored: bit i (least significant first within each byte) set when row
 * i is null. Blocks keep only their non-null values, densely; these find a row's place among
 * them straight from the bits, so that a decoder reading a few rows of a block does not unpack a
 * byte per row for all 16,384 of them.
 */

/** Set bits per byte value. */
const SET_BITS = (() => {
  const table = new Uint8Array(256);
  for (let byte = 1; byte < 256; byte++) table[byte] = (byte & 1) + table[byte >>> 1];
  return table;
})();

/** How many of the `n` rows are not null (all of them without a bitmap). */
export function nonNullCountOfBits(bits: Uint8Array | null, n: number): number {
  if (bits === null) return n;
  const bytes = n >>> 3;
  let nulls = 0;
  for (let i = 0; i < bytes; i++) nulls += SET_BITS[bits[i]];
  if ((n & 7) !== 0) nulls += SET_BITS[bits[bytes] & ((1 << (n & 7)) - 1)];
  return n - nulls;
}

/**
 * The position of each listed row (ascending) among the non-null rows, -1 for a null row: where
 * its value sits in a block's dense value sections.
 */
export function denseIndexes(bits: Uint8Array | null, rows: ArrayLike<number>): Int32Array {
  const out = new Int32Array(rows.length);
  // Nulls in the bytes before `byte`.
  let byte = 0;
  let nullsBefore = 0;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k];
    if (bits === null) {
      out[k] = row;
      continue;
    }
    const at = row >>> 3;
    for (; byte < at; byte++) nullsBefore += SET_BITS[bits[byte]];
    const bit = row & 7;
    const b = bits[at];
    out[k] = ((b >>> bit) & 1) === 1 ? -1 : row - nullsBefore - SET_BITS[b & ((1 << bit) - 1)];
  }
  return out;
}
