/**
 * Token bloom filter of a segment: lets a `search`/`has` query skip segments that cannot match.
 *
 * Hashing: a token's hash is 32-bit FNV-1a over its UTF-16 code units (the token as produced by
 * tokenizer.ts: lower-cased). Its k bit positions come from double hashing of two finalizers of
 * that hash (murmur3 fmix32 and lowbias32), g_i = a + i*b mod 2^32, scaled to the filter size.
 * One pass with two finalizers instead of two seeded passes halves the per-character cost on the
 * flush path; the price is that tokens with equal 32-bit hashes share all positions, a false
 * positive rate of tokens/2^32 (2e-4 at 1M tokens), far below the filter's own ~1%.
 *
 * Build side: `TokenHashSet` hashes tokens inline while scanning text (no string per token) and
 * dedupes hashes in an open-addressing table, so the filter is sized from the distinct count.
 *
 * Only text tokens go in: `_raw`'s and those of string field values. A `search field=value`
 * prunes by the tokens of its value (compile-search.ts); filters on numbers prune by min/max.
 */
import type { BlockMeta, BloomMeta } from './header';
import { TOKEN_LOWER } from './tokenizer';

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
/** 2^-32: turns a 32-bit hash into a fraction of the filter size (exact power of two). */
const INV_2_32 = 1 / 4294967296;

/**
 * Row block filters: 8 bits a token (k = 6, ~2.2% false positives). A block a needle's filter lets
 * through by mistake costs only its frame filters' checks (FRAME_BLOOM_BITS_PER_TOKEN), so these
 * were cut from 10 bits when the frame filters grew, to keep the stored size.
 */
export const DEFAULT_BLOOM_BITS_PER_TOKEN = 8;
/**
 * A block too small to be framed (framed-block.ts frameSizes) has no frame filters behind its
 * own: a needle its filter lets through by mistake decodes the whole block. Such blocks get 12
 * bits a token (k = 8, ~0.3% false positives). They are a flush's small segments and a cluster
 * node's quietest partitions, so a rare term is checked against many of them.
 */
export const UNFRAMED_BLOOM_BITS_PER_TOKEN = 12;
/** Upper bound of one filter (8 MiB); more tokens than ~8.4M at 8 bits each just raise the FPR. */
export const MAX_BLOOM_BITS = 8 * 1024 * 1024 * 8;

/** FNV-1a over code units, continuing from `h` (int32). */
function hashFrom(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

/** The 32-bit (int32) hash of a token, exactly as given (pass tokenizer output: lower-cased). */
export function hashToken(token: string): number {
  return hashFrom(FNV_OFFSET, token);
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function lowbias32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return h ^ (h >>> 16);
}

/** Distinct token hashes, collected without allocating per token. */
export class TokenHashSet {
  private table: Int32Array;
  private mask: number;
  /** Fibonacci hashing: slot = top log2(size) bits of h * 2^32/phi (FNV's low bits are weak). */
  private shift: number;
  private hasZero = false;
  /** Distinct hashes held. */
  size = 0;

  /** `expected`: distinct hashes to size the table for (each doubling rehashes everything held). */
  constructor(expected = 0) {
    const bits = Math.max(12, Math.ceil(Math.log2(Math.max(1, expected * 2))));
    this.table = new Int32Array(2 ** bits);
    this.mask = this.table.length - 1;
    this.shift = 32 - bits;
  }

  /** Grows the table now for `expected` distinct hashes in all. */
  reserve(expected: number): void {
    while (expected * 2 > this.table.length) this.grow();
  }

  /** Adds one token hash (from hashToken). */
  addHash(h: number): void {
    if (h === 0) {
      if (!this.hasZero) {
        this.hasZero = true;
        this.size++;
      }
      return;
    }
    const table = this.table;
    const mask = this.mask;
    let slot = Math.imul(h, 0x9e3779b1) >>> this.shift;
    for (;;) {
      const k = table[slot];
      if (k === h) return;
      if (k === 0) break;
      slot = (slot + 1) & mask;
    }
    table[slot] = h;
    if (++this.size * 2 > table.length) this.grow();
  }

  /** Adds a token given as a string, hashed exactly as given. */
  addToken(token: string): void {
    this.addHash(hashFrom(FNV_OFFSET, token));
  }

  /** Adds every token of `text` (the tokenizer.ts rule, hashed inline). */
  addText(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c0 = text.charCodeAt(i);
      if (c0 < 128 && TOKEN_LOWER[c0] === 0) {
        i++;
        continue;
      }
      const start = i;
      let h = FNV_OFFSET;
      let ascii = true;
      do {
        const c = text.charCodeAt(i);
        if (c < 128) {
          const v = TOKEN_LOWER[c];
          if (v === 0) break;
          h = Math.imul(h ^ v, FNV_PRIME);
        } else ascii = false;
      } while (++i < n);
      // Non-ASCII tokens take the exact toLowerCase path (rare; Unicode case rules are complex).
      this.addHash(ascii ? h : hashFrom(FNV_OFFSET, text.slice(start, i).toLowerCase()));
    }
  }

  /**
   * Adds the tokens of `text` whose UTF-8 is `bytes[start..end)`. ASCII text is scanned as bytes
   * (about twice as fast as charCodeAt); anything else takes the string path. When there is a
   * byte after `end`, it is briefly set to 0 as a sentinel (and restored), which takes a bounds
   * check out of the inner loop.
   */
  addUtf8(text: string, bytes: Uint8Array, start: number, end: number): void {
    if (end - start !== text.length) {
      this.addText(text);
      return;
    }
    this.addAsciiBytes(bytes, start, end);
  }

  /** Adds the tokens of ASCII text given as bytes (see addUtf8 for the sentinel). */
  addAsciiBytes(bytes: Uint8Array, start: number, end: number): void {
    if (end >= bytes.length) {
      this.scanBytes(bytes, start, end);
      return;
    }
    const saved = bytes[end];
    bytes[end] = 0;
    let i = start;
    while (i < end) {
      let v = TOKEN_LOWER[bytes[i++]];
      if (v === 0) continue;
      let h = Math.imul(FNV_OFFSET ^ v, FNV_PRIME);
      while ((v = TOKEN_LOWER[bytes[i]]) !== 0) {
        h = Math.imul(h ^ v, FNV_PRIME);
        i++;
      }
      this.addHash(h);
    }
    bytes[end] = saved;
  }

  /** addUtf8's loop without the sentinel. */
  private scanBytes(bytes: Uint8Array, start: number, end: number): void {
    let i = start;
    while (i < end) {
      let v = TOKEN_LOWER[bytes[i++]];
      if (v === 0) continue;
      let h = Math.imul(FNV_OFFSET ^ v, FNV_PRIME);
      while (i < end) {
        v = TOKEN_LOWER[bytes[i]];
        if (v === 0) break;
        h = Math.imul(h ^ v, FNV_PRIME);
        i++;
      }
      this.addHash(h);
    }
  }

  /** Calls `cb` with every distinct hash. */
  forEach(cb: (h: number) => void): void {
    if (this.hasZero) cb(0);
    const table = this.table;
    for (let i = 0; i < table.length; i++) if (table[i] !== 0) cb(table[i]);
  }

  /** Adds every hash of `other` (a frame's set into its block's: a loop, no call per hash). */
  addAll(other: TokenHashSet): void {
    // Room for both up front: the table cannot grow inside the loop.
    this.reserve(this.size + other.size);
    if (other.hasZero) this.addHash(0);
    const source = other.table;
    const table = this.table;
    const mask = this.mask;
    for (let i = 0; i < source.length; i++) {
      const h = source[i];
      if (h === 0) continue;
      let slot = Math.imul(h, 0x9e3779b1) >>> this.shift;
      for (;;) {
        const k = table[slot];
        if (k === h) break;
        if (k === 0) {
          table[slot] = h;
          this.size++;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
  }

  /** The distinct hashes, in table order. */
  toArray(): Int32Array {
    const out = new Int32Array(this.size);
    let k = 0;
    if (this.hasZero) out[k++] = 0;
    const table = this.table;
    for (let i = 0; i < table.length; i++) if (table[i] !== 0) out[k++] = table[i];
    return out;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = this.table.length - 1;
    this.shift--;
    const table = this.table;
    const mask = this.mask;
    for (let i = 0; i < old.length; i++) {
      const h = old[i];
      if (h === 0) continue;
      let slot = Math.imul(h, 0x9e3779b1) >>> this.shift;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = h;
    }
  }
}

/** Number of hash functions for a given density (optimal k = ln2 * bits/token). */
export function bloomHashCount(bitsPerToken: number): number {
  return Math.max(1, Math.min(16, Math.round(bitsPerToken * Math.LN2)));
}

/** Builds the filter over a token set. An empty set gives a 0-bit filter (matches nothing). */
export function buildBloom(
  tokens: TokenHashSet,
  bitsPerToken = DEFAULT_BLOOM_BITS_PER_TOKEN,
  maxBits = MAX_BLOOM_BITS,
): { bits: Buffer; meta: BloomMeta } {
  const count = tokens.size;
  if (count === 0) return { bits: Buffer.alloc(0), meta: { bits: 0, hashes: 0, tokens: 0 } };
  const cap = Math.max(64, Math.floor(maxBits / 64) * 64);
  const m = Math.min(cap, Math.ceil((count * bitsPerToken) / 64) * 64);
  const k = bloomHashCount(bitsPerToken);
  const bits = Buffer.alloc(m >>> 3);
  const scale = m * INV_2_32;
  const hashes = tokens.toArray();
  for (let t = 0; t < hashes.length; t++) {
    const h = hashes[t];
    const a = fmix32(h);
    const b = lowbias32(h) | 1;
    for (let i = 0; i < k; i++) {
      const p = Math.floor(((a + Math.imul(i, b)) >>> 0) * scale);
      bits[p >>> 3] |= 1 << (p & 7);
    }
  }
  return { bits, meta: { bits: m, hashes: k, tokens: count } };
}

function mayContainHash(bits: Uint8Array, meta: BloomMeta, h: number): boolean {
  const a = fmix32(h);
  const b = lowbias32(h) | 1;
  const scale = meta.bits * INV_2_32;
  for (let i = 0; i < meta.hashes; i++) {
    const p = Math.floor(((a + Math.imul(i, b)) >>> 0) * scale);
    if ((bits[p >>> 3] & (1 << (p & 7))) === 0) return false;
  }
  return true;
}

/**
 * False when the segment certainly holds no such token. `token` is hashed exactly as given: pass
 * tokenizer output (lower-cased). A 0-bit filter with tokens recorded (never
 * written by the encoder) cannot prune.
 */
export function bloomMayContain(bits: Uint8Array, meta: BloomMeta, token: string): boolean {
  if (meta.bits === 0) return meta.tokens !== 0;
  return mayContainHash(bits, meta, hashFrom(FNV_OFFSET, token));
}

/** False when at least one of the tokens is certainly absent. */
export function bloomMayContainAll(bits: Uint8Array, meta: BloomMeta, tokens: Iterable<string>): boolean {
  for (const t of tokens) if (!bloomMayContain(bits, meta, t)) return false;
  return true;
}

/**
 * Frame filters choose which frames of a kept block to decompress. At 6 bits a token (k = 4) few
 * frames without the term are inflated, for little more storage; inflating and scanning a frame
 * is the largest cost of a needle search (figures: docs/benchmarks.md, "Figures behind the constants").
 */
export const FRAME_BLOOM_BITS_PER_TOKEN = 6;

/**
 * A frame's filter of its referenced values' tokens (header.ts FrameMeta.refs) is much denser: a
 * token it lets through by mistake makes the search decode the block's fields and fill in and
 * test every line of the frame instead of searching the skeletons as bytes, which costs many times
 * more; so it gets 16 bits (k = 11) (figures: docs/benchmarks.md, "Figures behind the constants").
 */
export const REFS_BLOOM_BITS_PER_TOKEN = 16;

/** The frames of a block a search reads (framesToRead). */
export interface FrameChoice {
  frames: number[];
  /**
   * Per entry of `frames`: the position in `tokens` of a token that no referenced field value of
   * the frame holds (its `refs` filter rules it out), so a matching row's skeleton must hold it;
   * -1 when there is none (or the frame has no field references).
   */
  ownTokens: number[];
}

/**
 * The frames of a block whose `_raw` filters may hold every token, given the block's stored
 * filter value (the block's bits, then each frame's, then each frame's `refs` filter, in order;
 * see header.ts BlockMeta.frames). A frame with field references may hold a token in its
 * skeletons or in its referenced values.
 */
export function framesToRead(value: Uint8Array, block: BlockMeta, tokens: readonly string[]): FrameChoice {
  const frames = block.frames ?? [];
  const out: FrameChoice = { frames: [], ownTokens: [] };
  let offset = block.bloom.bits >>> 3;
  let refsOffset = offset;
  for (const frame of frames) refsOffset += frame.bloom.bits >>> 3;
  frames.forEach((frame, f) => {
    const own = value.subarray(offset, offset + (frame.bloom.bits >>> 3));
    offset += frame.bloom.bits >>> 3;
    if (frame.refs === undefined) {
      if (bloomMayContainAll(own, frame.bloom, tokens)) {
        out.frames.push(f);
        out.ownTokens.push(-1);
      }
      return;
    }
    const refs = value.subarray(refsOffset, refsOffset + (frame.refs.bits >>> 3));
    refsOffset += frame.refs.bits >>> 3;
    let ownToken = -1;
    for (let t = 0; t < tokens.length; t++) {
      const inRefs = bloomMayContain(refs, frame.refs, tokens[t]);
      if (!inRefs && !bloomMayContain(own, frame.bloom, tokens[t])) return;
      // The longest such token: most likely the rarest, so the fewest skeletons to fill in.
      if (!inRefs && (ownToken === -1 || tokens[t].length > tokens[ownToken].length)) ownToken = t;
    }
    out.frames.push(f);
    out.ownTokens.push(ownToken);
  });
  return out;
}

/** The frames of a block whose `_raw` filters may hold every token (framesToRead's frames). */
export function framesMayContainAll(value: Uint8Array, block: BlockMeta, tokens: readonly string[]): number[] {
  return framesToRead(value, block, tokens).frames;
}
