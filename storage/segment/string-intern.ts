/**
 * Interning of dictionary entries across blocks. Every block has a dictionary of its own, so a
 * high-cardinality field (paths, user ids) repeats most entries of the block before, and a query
 * that groups by it made a fresh JS string of each entry in each block, then hashed it again in
 * the grouping Map. The interner hashes the entry's bytes instead and hands back the string it
 * made the first time: no string per block, and a Map lookup of a string seen before compares
 * pointers (V8 caches a string's hash in the string).
 *
 * One table per thread (each query worker has its own), bounded: when it is full it starts over,
 * which costs a re-made string per entry, never a wrong one. Only text stored as ASCII or UTF-8
 * is interned; the bytes are the string's one encoding in both.
 */

/** Entries and arena bytes before the table starts over (about 40 MB at the limit). */
const MAX_ENTRIES = 1 << 19;
const MAX_ARENA_BYTES = 24 << 20;
/** Entries longer than this are made afresh: long values rarely repeat, and hashing them costs. */
export const MAX_INTERNED_BYTES = 256;

/** Tells the interners' generations apart: an entry id means one string within one epoch. */
let nextEpoch = 1;

export class StringInterner {
  /** Changes when the table starts over (entry ids are then reused for other strings). */
  epoch = nextEpoch++;
  private slots = new Int32Array(1 << 12).fill(-1);
  private mask = (1 << 12) - 1;
  private hashes = new Int32Array(1 << 10);
  private starts = new Int32Array(1 << 10);
  private lengths = new Int32Array(1 << 10);
  private strings: string[] = [];
  private arena = Buffer.allocUnsafe(1 << 16);
  private arenaUsed = 0;

  get size(): number {
    return this.strings.length;
  }

  /** The string of an entry id (from entryOf, in this epoch). */
  stringAt(entry: number): string {
    return this.strings[entry];
  }

  /**
   * The entry id of `bytes[start, end)` decoded as `encoding` ('latin1' for ASCII text, 'utf8'):
   * the same id, whose stringAt is the same string object, each time the same bytes come back,
   * until the epoch changes. A reader can key a table by it instead of hashing the string. -1 for
   * text too long to intern.
   */
  entryOf(bytes: Buffer, start: number, end: number, encoding: 'latin1' | 'utf8'): number {
    const length = end - start;
    if (length > MAX_INTERNED_BYTES) return -1;
    let hash = 0x811c9dc5 ^ length;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
    const mask = this.mask;
    let slot = hash & mask;
    for (;;) {
      const entry = this.slots[slot];
      if (entry === -1) break;
      if (this.hashes[entry] === hash && this.lengths[entry] === length && this.sameBytes(entry, bytes, start, length)) return entry;
      slot = (slot + 1) & mask;
    }
    // Not seen: the utf8 and latin1 decodings of the same bytes differ only above 0x7f, which an
    // ASCII chunk never holds, so the bytes alone name the string.
    if (this.strings.length >= MAX_ENTRIES || this.arenaUsed + length > MAX_ARENA_BYTES) {
      this.clear();
      return this.entryOf(bytes, start, end, encoding);
    }
    return this.insert(slot, hash, bytes, start, length, bytes.toString(encoding, start, end));
  }

  clear(): void {
    this.epoch = nextEpoch++;
    this.slots = new Int32Array(1 << 12).fill(-1);
    this.mask = (1 << 12) - 1;
    this.strings = [];
    this.arenaUsed = 0;
  }

  private sameBytes(entry: number, bytes: Buffer, start: number, length: number): boolean {
    const arena = this.arena;
    const at = this.starts[entry];
    for (let i = 0; i < length; i++) if (arena[at + i] !== bytes[start + i]) return false;
    return true;
  }

  private insert(slot: number, hash: number, bytes: Buffer, start: number, length: number, value: string): number {
    const entry = this.strings.length;
    if (entry === this.hashes.length) {
      this.hashes = grow(this.hashes);
      this.starts = grow(this.starts);
      this.lengths = grow(this.lengths);
    }
    if (this.arenaUsed + length > this.arena.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.arena.length * 2, this.arenaUsed + length));
      this.arena.copy(bigger, 0, 0, this.arenaUsed);
      this.arena = bigger;
    }
    bytes.copy(this.arena, this.arenaUsed, start, start + length);
    this.hashes[entry] = hash;
    this.starts[entry] = this.arenaUsed;
    this.lengths[entry] = length;
    this.arenaUsed += length;
    this.strings.push(value);
    this.slots[slot] = entry;
    // Keep the table at most half full, so probes stay short.
    if (this.strings.length * 2 > this.slots.length) this.rehash();
    return entry;
  }

  private rehash(): void {
    const size = this.slots.length * 2;
    const slots = new Int32Array(size).fill(-1);
    const mask = size - 1;
    for (let entry = 0; entry < this.strings.length; entry++) {
      let slot = this.hashes[entry] & mask;
      while (slots[slot] !== -1) slot = (slot + 1) & mask;
      slots[slot] = entry;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** This thread's interner for dictionary entries. */
export const dictionaryInterner = new StringInterner();
