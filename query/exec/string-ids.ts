/**
 * Dense ids of distinct strings, in an open-addressing table. A `stats` key with many groups
 * (paths, user ids) merges thousands of partial keys per query, and V8's Map spends about 400 ns
 * on each new key (a lookup that misses, then an insert that grows the table); this table spends
 * about a quarter of that, most of it hashing the characters.
 *
 * The hash is seeded per process, and a probe longer than MAX_PROBE (keys made to collide)
 * makes `idOf` answer null from then on: the caller moves to a Map, which V8 seeds and guards.
 */
import { doubledSlots } from '../../storage/core/open-slots';

/** The longest probe before the table gives up on its hash (a fair table probes 1-2 slots). */
const MAX_PROBE = 48;

/** The FNV-1a offset basis, mixed with a per-process seed so that colliding keys cannot be made ahead. */
const SEED = 0x811c9dc5 ^ Math.floor(Math.random() * 0x1_0000_0000);

function hashOf(text: string): number {
  let hash = SEED;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  // FNV's low bits mix poorly; fold the high half in, since the slot is the low bits. A signed
  // 32-bit result stays a small integer to V8, never a heap number.
  return hash ^ (hash >>> 15);
}

export class StringIds {
  /**
   * `hashBits`: the bits of the hash used (tests keep none, so that every key collides). A mask
   * rather than a hash function: a call through a field costs each key more than its hashing.
   */
  constructor(private readonly hashBits = -1) {}

  /** Entry of each slot plus one (0: empty). */
  private slots = new Int32Array(64);
  private readonly strings: string[] = [];
  private ids = new Int32Array(32);
  private hashes = new Int32Array(32);
  /** Set once a probe ran past MAX_PROBE: the table answers null from then on. */
  private overrun = false;

  get size(): number {
    return this.strings.length;
  }

  /** Each string and its id, in the order they were added (for a caller moving to a Map). */
  entries(): Array<[string, number]> {
    return this.strings.map((text, entry) => [text, this.ids[entry]]);
  }

  /**
   * The id of `text`: the one it was added with, or `next` (added now) if new. Null when the
   * table's probes ran too long: nothing was added, and the caller must use another map.
   */
  idOf(text: string, next: number): number | null {
    if (this.overrun) return null;
    const hash = hashOf(text) & this.hashBits;
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let probe = 0; probe < MAX_PROBE; probe++) {
      const entry = this.slots[slot] - 1;
      if (entry === -1) return this.add(text, hash, slot, next);
      if (this.hashes[entry] === hash && this.strings[entry] === text) return this.ids[entry];
      slot = (slot + 1) & mask;
    }
    this.overrun = true;
    return null;
  }

  private add(text: string, hash: number, slot: number, id: number): number {
    const entry = this.strings.length;
    if (entry === this.ids.length) this.growEntries();
    this.strings.push(text);
    this.ids[entry] = id;
    this.hashes[entry] = hash;
    this.slots[slot] = entry + 1;
    // At most half full: probes stay short.
    if ((entry + 1) * 2 > this.slots.length) this.slots = doubledSlots(this.slots, this.hashes, entry + 1);
    return id;
  }

  private growEntries(): void {
    const ids = new Int32Array(this.ids.length * 2);
    ids.set(this.ids);
    this.ids = ids;
    const hashes = new Int32Array(this.hashes.length * 2);
    hashes.set(this.hashes);
    this.hashes = hashes;
  }
}
