/**
 * Finds a `search` literal in UTF-8 bytes, before any JS string exists: a necessary condition of
 * the query side's match (query/exec/text-match.ts literalMatcher: case-insensitive, token
 * boundaries at the literal's ends). A row whose bytes hold no hit cannot match; a row with a hit
 * is still checked exactly on its string.
 *
 * Case: V8's case-insensitive (non-unicode) regex folds ASCII letters among themselves only (it
 * never folds a non-ASCII character to an ASCII one), so on the literal's ASCII characters a byte
 * compare with A-Z folded to a-z is exact. Non-ASCII characters have case rules bytes cannot
 * follow: the search looks for the literal's longest ASCII run (the anchor) and checks a token
 * boundary only where the anchor is an end of the literal. A literal without ASCII characters
 * gives no byte condition (`LiteralByteSearch.of` answers null).
 *
 * Token boundaries: token characters are [A-Za-z0-9_] and every UTF-16 code unit >= 128
 * (tokenizer.ts); every byte of a non-ASCII character's UTF-8 is >= 0x80, so the byte test is the
 * code unit test.
 */
import { TOKEN_ASCII } from './tokenizer';

/** A byte with A-Z folded to a-z (other bytes unchanged). */
const FOLD: Uint8Array = (() => {
  const t = new Uint8Array(256);
  for (let b = 0; b < 256; b++) t[b] = b >= 65 && b <= 90 ? b + 32 : b;
  return t;
})();

/** 1 for bytes that belong inside a token. */
const TOKEN_BYTE: Uint8Array = (() => {
  const t = new Uint8Array(256);
  for (let b = 0; b < 256; b++) t[b] = b >= 128 || TOKEN_ASCII[b] === 1 ? 1 : 0;
  return t;
})();

/** Bytes of the anchor covered by the position masks (bits of an int32). */
const MASK_BYTES = 32;

export class LiteralByteSearch {
  /** The anchor's bytes, folded. */
  private readonly pattern: Uint8Array;
  /** Per byte value: bit j set when the anchor's byte j (j < 32) is that byte, either case. */
  private readonly positions = new Int32Array(256);
  /** Distance between sampled byte pairs: every occurrence of the anchor holds a whole sampled pair. */
  private readonly stride: number;

  private constructor(
    anchor: string,
    /** The anchor starts the literal with a token character: the byte before it must not be one. */
    private readonly boundedStart: boolean,
    /** The anchor ends the literal with a token character: the byte after it must not be one. */
    private readonly boundedEnd: boolean,
  ) {
    const m = anchor.length;
    this.pattern = new Uint8Array(m);
    for (let i = 0; i < m; i++) this.pattern[i] = FOLD[anchor.charCodeAt(i)];
    const covered = Math.min(m, MASK_BYTES);
    for (let j = 0; j < covered; j++) {
      const b = this.pattern[j];
      this.positions[b] |= 1 << j;
      if (b >= 97 && b <= 122) this.positions[b - 32] |= 1 << j;
    }
    this.stride = Math.max(1, covered - 1);
  }

  /** The search for `literal`, or null when it has no ASCII character to look for. */
  static of(literal: string): LiteralByteSearch | null {
    let best = { start: 0, end: 0 };
    let start = 0;
    for (let i = 0; i <= literal.length; i++) {
      if (i < literal.length && literal.charCodeAt(i) < 128) continue;
      if (i - start > best.end - best.start) best = { start, end: i };
      start = i + 1;
    }
    if (best.end === best.start) return null;
    const isTokenAt = (i: number): boolean => TOKEN_BYTE[literal.charCodeAt(i)] === 1;
    return new LiteralByteSearch(
      literal.slice(best.start, best.end),
      best.start === 0 && isTokenAt(0),
      best.end === literal.length && isTokenAt(literal.length - 1),
    );
  }

  /** Bytes of the anchor: a hit at `p` covers `[p, p + length)`. */
  get length(): number {
    return this.pattern.length;
  }

  /**
   * Start of the first case-insensitive occurrence of the anchor inside `[from, end)`, or -1
   * (boundaries not checked). Samples a byte pair every `stride` bytes (no step depends on the
   * data, so the loads pipeline) and ANDs the pair's position masks: a set bit j means the anchor
   * may start j bytes before the sample, which `verify` then compares. Each start is examined at
   * one sample only.
   */
  find(bytes: Uint8Array, from: number, end: number): number {
    const m = this.pattern.length;
    if (m === 1) {
      const only = this.pattern[0];
      for (let i = from; i < end; i++) if (FOLD[bytes[i]] === only) return i;
      return -1;
    }
    const positions = this.positions;
    const stride = this.stride;
    const lastSample = end - 2;
    for (let i = from; i <= lastSample; i += stride) {
      const mask = positions[bytes[i]] & (positions[bytes[i + 1]] >>> 1);
      if (mask !== 0) {
        const start = this.verify(bytes, i, mask, from, end);
        if (start !== -1) return start;
      }
    }
    return -1;
  }

  /** The earliest start `i - j` (j a set bit of `mask`) where the whole anchor is, or -1. */
  private verify(bytes: Uint8Array, i: number, mask: number, from: number, end: number): number {
    const pattern = this.pattern;
    const m = pattern.length;
    while (mask !== 0) {
      // Highest bit first: the earliest start.
      const j = 31 - Math.clz32(mask);
      mask ^= 1 << j;
      const start = i - j;
      if (start < from || start + m > end) continue;
      let k = 0;
      while (k < m && FOLD[bytes[start + k]] === pattern[k]) k++;
      if (k === m) return start;
    }
    return -1;
  }

  /** True when a hit at `at` (from find) has the literal's token boundaries inside the text `[start, end)`. */
  bounded(bytes: Uint8Array, at: number, start: number, end: number): boolean {
    if (this.boundedStart && at > start && TOKEN_BYTE[bytes[at - 1]] === 1) return false;
    const after = at + this.pattern.length;
    return !(this.boundedEnd && after < end && TOKEN_BYTE[bytes[after]] === 1);
  }

  /** True when the text `bytes[start..end)` may match the literal (it holds a bounded hit). */
  mayMatch(bytes: Uint8Array, start: number, end: number): boolean {
    for (let at = this.find(bytes, start, end); at !== -1; at = this.find(bytes, at + 1, end)) {
      if (this.bounded(bytes, at, start, end)) return true;
    }
    return false;
  }
}
