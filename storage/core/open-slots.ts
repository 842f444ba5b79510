/**
 * The slot array of an open-addressing hash table with linear probing, as the tables of distinct
 * byte strings (byte-chunk-builder.ts) and of stats keys (query/exec/string-ids.ts) keep it: each
 * slot holds an entry's index plus one, 0 when empty, and each entry's hash is kept beside it.
 */

/** Twice as many slots, holding entries [0, entries) placed again by their kept hashes. */
export function doubledSlots(slots: Int32Array, hashes: ArrayLike<number>, entries: number): Int32Array<ArrayBuffer> {
  const doubled = new Int32Array(slots.length * 2);
  const mask = doubled.length - 1;
  for (let entry = 0; entry < entries; entry++) {
    let slot = hashes[entry] & mask;
    while (doubled[slot] !== 0) slot = (slot + 1) & mask;
    doubled[slot] = entry + 1;
  }
  return doubled;
}
