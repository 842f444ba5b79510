/**
 * A JSON reader over UTF-8 bytes, for parsers that map a body without building its objects
 * (native-scan.ts). It validates what it reads as JSON.parse does and throws JSON_FALLBACK at the
 * first thing it will not take (invalid JSON, or a lone surrogate escape, which UTF-8 cannot hold):
 * the caller then parses the body the general way, which gives the exact error or result.
 *
 * JS loops cost a few ns a byte here, so each string is read once: its end found through a class
 * table, and its hash (keys and values) or its unescaped copy (`_raw`) made in the same pass.
 */

/** Thrown by the reader (and its callers) when the body needs the general parser. */
export const JSON_FALLBACK = new Error('body needs the general JSON parser');

export const QUOTE = 34;
export const BACKSLASH = 92;
export const COMMA = 44;
export const COLON = 58;
export const OPEN_BRACE = 123;
export const CLOSE_BRACE = 125;
export const OPEN_BRACKET = 91;
export const CLOSE_BRACKET = 93;

/** Byte classes inside a string: 0 plain, else a quote, a backslash, a control byte or a non-ASCII byte. */
const PLAIN = 0;
const STRING_CLASS = new Uint8Array(256);
for (let c = 0; c < 32; c++) STRING_CLASS[c] = 3;
STRING_CLASS[QUOTE] = 1;
STRING_CLASS[BACKSLASH] = 2;
for (let c = 128; c < 256; c++) STRING_CLASS[c] = 4;

/** Powers of ten that doubles hold exactly: a mantissa below 2^53 divided by one is correctly rounded. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** Nesting a skipped value may have before the reader hands over. */
const MAX_SKIP_DEPTH = 64;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over bytes: the hash `string()` computes. */
export function hashBytes(source: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ source[i], FNV_PRIME);
  return hash >>> 0;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

export class JsonByteReader {
  pos = 0;
  readonly end: number;

  // The last string read: content range, whether it has escapes, whether its text is ASCII, its hash.
  strStart = 0;
  strEnd = 0;
  strEscaped = false;
  strAscii = true;
  strHash = 0;

  constructor(readonly src: Buffer) {
    this.end = src.length;
  }

  whitespace(): void {
    const src = this.src;
    let i = this.pos;
    for (;;) {
      const c = src[i];
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.pos = i;
  }

  /** The byte at `pos` (undefined past the end). */
  peek(): number {
    return this.src[this.pos];
  }

  expect(c: number): void {
    if (this.src[this.pos] !== c) throw JSON_FALLBACK;
    this.pos++;
  }

  /** Reads `,` (true) or `close` (false) after whitespace. */
  more(close: number): boolean {
    this.whitespace();
    const c = this.src[this.pos++];
    if (c === COMMA) return true;
    if (c === close) return false;
    throw JSON_FALLBACK;
  }

  /** Checks the escape at `i` (its backslash); returns its length. Notes non-ASCII text in `strAscii`. */
  private escape(i: number): number {
    const src = this.src;
    const e = src[i + 1];
    if (e === 117) {
      const code = (hexValue(src[i + 2]) << 12) | (hexValue(src[i + 3]) << 8) | (hexValue(src[i + 4]) << 4) | hexValue(src[i + 5]);
      // A bad digit makes the code negative; a surrogate would need UTF-16 pairing.
      if (code < 0 || (code >= 0xd800 && code <= 0xdfff)) throw JSON_FALLBACK;
      if (code >= 0x80) this.strAscii = false;
      return 6;
    }
    if (e === QUOTE || e === BACKSLASH || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) return 2;
    throw JSON_FALLBACK;
  }

  /**
   * A string at `pos` (its opening quote): validated, its range, flags and hash noted (the hash of
   * the bytes as written, as `hashBytes` computes it: the content's when it has no escapes), `pos`
   * after it.
   */
  string(): void {
    const src = this.src;
    let i = this.pos + 1;
    let hash = FNV_OFFSET;
    this.strStart = i;
    this.strEscaped = false;
    this.strAscii = true;
    for (;;) {
      let c = src[i];
      while (STRING_CLASS[c] === PLAIN) {
        hash = Math.imul(hash ^ c, FNV_PRIME);
        c = src[++i];
      }
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        this.strEscaped = true;
        i += this.escape(i);
      } else if (c >= 128) {
        this.strAscii = false;
        hash = Math.imul(hash ^ c, FNV_PRIME);
        i++;
      } else {
        throw JSON_FALLBACK;
      }
    }
    this.strHash = hash >>> 0;
    this.strEnd = i;
    this.pos = i + 1;
  }

  /**
   * `string()` without the hash, writing the unescaped content into `out` at `at` in the same
   * pass; returns its length. `out` must have room for the rest of the body after `at`. A loop of
   * its own: it reads `_raw`, most of a body's bytes, which need a copy and no hash.
   */
  copiedString(out: Buffer, at: number): number {
    const src = this.src;
    let i = this.pos + 1;
    let o = at;
    this.strStart = i;
    this.strEscaped = false;
    this.strAscii = true;
    for (;;) {
      let c = src[i];
      while (STRING_CLASS[c] === PLAIN) {
        out[o++] = c;
        c = src[++i];
      }
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        this.strEscaped = true;
        const length = this.escape(i);
        o = writeEscape(src, i, out, o);
        i += length;
      } else if (c >= 128) {
        this.strAscii = false;
        out[o++] = c;
        i++;
      } else {
        throw JSON_FALLBACK;
      }
    }
    this.strEnd = i;
    this.pos = i + 1;
    return o - at;
  }

  /** Writes the unescaped content of a string already read (`start`, `end`) at `at` of `out`; returns its length. */
  unescapeInto(start: number, end: number, out: Buffer, at: number): number {
    const src = this.src;
    let o = at;
    for (let i = start; i < end;) {
      const c = src[i];
      if (c !== BACKSLASH) {
        out[o++] = c;
        i++;
      } else {
        o = writeEscape(src, i, out, o);
        i += src[i + 1] === 117 ? 6 : 2;
      }
    }
    return o - at;
  }

  /** A JSON number at `pos`, exactly as JSON.parse reads it. */
  number(): number {
    const src = this.src;
    let i = this.pos;
    const start = i;
    let negative = false;
    if (src[i] === 45) {
      negative = true;
      i++;
    }
    let mantissa = 0;
    let digits = 0;
    let c = src[i];
    if (c === 48) {
      i++;
      digits = 1;
    } else if (c >= 49 && c <= 57) {
      while ((c = src[i]) >= 48 && c <= 57) {
        mantissa = mantissa * 10 + (c - 48);
        digits++;
        i++;
      }
    } else {
      throw JSON_FALLBACK;
    }
    let fraction = 0;
    if (src[i] === 46) {
      const from = ++i;
      while ((c = src[i]) >= 48 && c <= 57) {
        mantissa = mantissa * 10 + (c - 48);
        i++;
      }
      fraction = i - from;
      if (fraction === 0) throw JSON_FALLBACK;
      digits += fraction;
    }
    let exponent = false;
    c = src[i];
    if (c === 101 || c === 69) {
      exponent = true;
      c = src[++i];
      if (c === 43 || c === 45) i++;
      const from = i;
      while ((c = src[i]) >= 48 && c <= 57) i++;
      if (i === from) throw JSON_FALLBACK;
    }
    this.pos = i;
    if (!exponent && digits <= 15) {
      // Below 2^53 the mantissa is exact, and so is 10^fraction: one division rounds correctly.
      const v = fraction === 0 ? mantissa : mantissa / POW10[fraction];
      return negative ? -v : v;
    }
    return Number(src.toString('latin1', start, i));
  }

  /** `true`, `false` or `null` at `pos`. */
  literal(text: 'true' | 'false' | 'null'): void {
    const src = this.src;
    for (let k = 0; k < text.length; k++) if (src[this.pos + k] !== text.charCodeAt(k)) throw JSON_FALLBACK;
    this.pos += text.length;
  }

  /** Skips any JSON value at `pos`, validated. */
  skipValue(depth = 0): void {
    if (depth > MAX_SKIP_DEPTH) throw JSON_FALLBACK;
    const c = this.src[this.pos];
    if (c === QUOTE) this.string();
    else if (c === 116) this.literal('true');
    else if (c === 102) this.literal('false');
    else if (c === 110) this.literal('null');
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
      this.pos++;
      this.whitespace();
      if (this.src[this.pos] === close) {
        this.pos++;
        return;
      }
      do {
        this.whitespace();
        if (c === OPEN_BRACE) {
          if (this.src[this.pos] !== QUOTE) throw JSON_FALLBACK;
          this.string();
          this.whitespace();
          this.expect(COLON);
          this.whitespace();
        }
        this.skipValue(depth + 1);
      } while (this.more(close));
    } else this.number();
  }

  /**
   * Reads the string at `pos` if it is exactly `text` (bytes already known to need no escapes):
   * one pass instead of a scan and a comparison. Leaves `pos` unchanged otherwise.
   */
  matchesKey(text: Buffer): boolean {
    const src = this.src;
    const start = this.pos + 1;
    const length = text.length;
    if (src[start + length] !== QUOTE) return false;
    for (let k = 0; k < length; k++) if (src[start + k] !== text[k]) return false;
    this.strStart = start;
    this.strEnd = start + length;
    this.strEscaped = false;
    this.strAscii = true;
    this.pos = start + length + 1;
    return true;
  }

  /** Whether the last string's content is exactly `text` (ASCII). */
  stringIs(text: string): boolean {
    if (this.strEnd - this.strStart !== text.length) return false;
    const src = this.src;
    const start = this.strStart;
    for (let k = 0; k < text.length; k++) if (src[start + k] !== text.charCodeAt(k)) return false;
    return true;
  }
}

/** Writes the character of the (valid) escape at `i` of `src` as UTF-8 at `o` of `out`; returns the new `o`. */
function writeEscape(src: Buffer, i: number, out: Buffer, o: number): number {
  const e = src[i + 1];
  switch (e) {
    case 98:
      out[o] = 8;
      return o + 1;
    case 102:
      out[o] = 12;
      return o + 1;
    case 110:
      out[o] = 10;
      return o + 1;
    case 114:
      out[o] = 13;
      return o + 1;
    case 116:
      out[o] = 9;
      return o + 1;
    case 117: {
      const code = (hexValue(src[i + 2]) << 12) | (hexValue(src[i + 3]) << 8) | (hexValue(src[i + 4]) << 4) | hexValue(src[i + 5]);
      if (code < 0x80) {
        out[o] = code;
        return o + 1;
      }
      if (code < 0x800) {
        out[o] = 0xc0 | (code >> 6);
        out[o + 1] = 0x80 | (code & 63);
        return o + 2;
      }
      out[o] = 0xe0 | (code >> 12);
      out[o + 1] = 0x80 | ((code >> 6) & 63);
      out[o + 2] = 0x80 | (code & 63);
      return o + 3;
    }
    default:
      out[o] = e; // `"`, `\` and `/` stand for themselves
      return o + 1;
  }
}
