// String functions. Non-string arguments are read as text (numbers in JS form, `time`-typed values as
// ISO 8601, booleans as true/false); a null argument gives null. Lengths and positions count Unicode
// code points (a surrogate pair is one character), as SPL's len/substr count characters.

import { toNumber, type StaticType, type Value } from '../value';
import { fn, isTimeArg, textOf } from './common';
import type { ScalarFactory, ScalarFamily, ScalarFunction } from './types';

const SURROGATE = /[\ud800-\udfff]/;

/** Code points in s (UTF-16 length minus the low halves of surrogate pairs). */
export function codePointLength(s: string): number {
  // Our own constant regex (not a user one): irregexp scans for surrogates faster than a JS loop.
  if (!SURROGATE.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** UTF-16 offset of the code point `cp` characters after offset `i` (s.length when past the end). */
function unitOffset(s: string, i: number, cp: number): number {
  for (let k = 0; k < cp && i < s.length; k++) {
    const c = s.charCodeAt(i);
    const d = s.charCodeAt(i + 1);
    i += c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
  }
  return i;
}

/** One-argument text functions: null -> null, else f(text). */
function textUnary(f: (s: string) => Value, resultType: StaticType = 'string'): ScalarFactory {
  return (site) => {
    const time = isTimeArg(site, 0);
    return fn(resultType, (args) => {
      const s = textOf(args[0]!, time);
      return s === null ? null : f(s);
    });
  };
}

const lower = (s: string): Value => s.toLowerCase();
const upper = (s: string): Value => s.toUpperCase();
const len = (s: string): Value => codePointLength(s);
const trim = (s: string): Value => s.trim();
const ltrim = (s: string): Value => s.trimStart();
const rtrim = (s: string): Value => s.trimEnd();

/**
 * substr(s, start[, len]): start is 1-based (SPL); 0 reads as 1; a negative start counts from the end
 * (-1 is the last character) and is clamped to the first character; len defaults to the rest and may
 * run past the end; a negative len gives null. Non-integer numbers are truncated.
 */
export const substr: ScalarFactory = (site) => {
  const time = isTimeArg(site, 0);
  const withLen = site.argTypes.length > 2;
  return fn('string', (args) => {
    const s = textOf(args[0]!, time);
    const start = toNumber(args[1]!);
    if (s === null || start === null || Number.isNaN(start)) return null;
    let count = Infinity;
    if (withLen) {
      const l = toNumber(args[2]!);
      if (l === null || !(l >= 0)) return null;
      count = Math.trunc(l);
    }
    return substring(s, Math.trunc(start), count);
  });
};

function substring(s: string, start: number, count: number): string {
  const total = codePointLength(s);
  let from = start > 0 ? start - 1 : start < 0 ? total + start : 0;
  if (from < 0) from = 0;
  if (from >= total || count === 0) return '';
  const to = count >= total - from ? total : from + count;
  if (total === s.length) return s.slice(from, to);
  const a = unitOffset(s, 0, from);
  return s.slice(a, unitOffset(s, a, to - from));
}

/**
 * split(s, sep, index): the index-th part (0-based) of s split on the plain text sep; a negative index
 * counts from the end (-1 is the last part); out of range or an empty separator gives null.
 */
export const split: ScalarFactory = (site) => {
  const t0 = isTimeArg(site, 0);
  const t1 = isTimeArg(site, 1);
  return fn('string', (args) => {
    const s = textOf(args[0]!, t0);
    const sep = textOf(args[1]!, t1);
    const index = toNumber(args[2]!);
    if (s === null || sep === null || index === null || sep === '' || !Number.isFinite(index)) return null;
    let k = Math.trunc(index);
    if (k < 0) {
      let parts = 1;
      for (let i = s.indexOf(sep); i >= 0; i = s.indexOf(sep, i + sep.length)) parts++;
      k += parts;
      if (k < 0) return null;
    }
    let from = 0;
    for (; k > 0; k--) {
      const i = s.indexOf(sep, from);
      if (i < 0) return null;
      from = i + sep.length;
    }
    const end = s.indexOf(sep, from);
    return end < 0 ? s.slice(from) : s.slice(from, end);
  });
};

/** Two-text predicates, case-sensitive (use lower() on both sides for a case-insensitive test). */
function textPredicate(test: (s: string, t: string) => boolean): ScalarFactory {
  return (site) => {
    const t0 = isTimeArg(site, 0);
    const t1 = isTimeArg(site, 1);
    return fn('boolean', (args) => {
      const s = textOf(args[0]!, t0);
      const t = textOf(args[1]!, t1);
      return s === null || t === null ? null : test(s, t);
    });
  };
}

/** concat(a, b, ...): the texts joined; any null argument gives null (wrap it in coalesce(x, "")). */
export const concat: ScalarFactory = (site): ScalarFunction => {
  const times = site.argTypes.map((t) => t === 'time');
  return fn('string', (args) => {
    let out = '';
    for (let i = 0; i < args.length; i++) {
      const s = textOf(args[i]!, times[i] === true);
      if (s === null) return null;
      out += s;
    }
    return out;
  });
};

let scratch = Buffer.allocUnsafe(256);

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * Percent-decoding (RFC 3986) with UTF-8 escapes; `+` stays `+`. A malformed escape (`%zz`, a `%` at
 * the end), escapes that are not valid UTF-8, or a lone surrogate return the input unchanged.
 */
export function urlDecode(s: string): string {
  if (s.indexOf('%') < 0) return s;
  const need = s.length * 3;
  if (scratch.length < need) scratch = Buffer.allocUnsafe(need);
  let n = 0;
  let pending = 0; // continuation bytes the current UTF-8 sequence still expects
  let lo = 0x80; // bounds of the next continuation byte (tighter after E0, ED, F0, F4)
  let hi = 0xbf;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const h = hexValue(s.charCodeAt(i + 1));
      const l = hexValue(s.charCodeAt(i + 2));
      if (h < 0 || l < 0) return s;
      const b = h * 16 + l;
      i += 2;
      if (pending > 0) {
        if (b < lo || b > hi) return s;
        pending--;
        lo = 0x80;
        hi = 0xbf;
      } else if (b >= 0x80) {
        if (b >= 0xc2 && b <= 0xdf) pending = 1;
        else if (b >= 0xe0 && b <= 0xef) {
          pending = 2;
          if (b === 0xe0) lo = 0xa0;
          else if (b === 0xed) hi = 0x9f;
        } else if (b >= 0xf0 && b <= 0xf4) {
          pending = 3;
          if (b === 0xf0) lo = 0x90;
          else if (b === 0xf4) hi = 0x8f;
        } else return s;
      }
      scratch[n++] = b;
      continue;
    }
    if (pending > 0) return s;
    if (c < 0x80) {
      scratch[n++] = c;
    } else if (c < 0x800) {
      scratch[n++] = 0xc0 | (c >> 6);
      scratch[n++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = s.charCodeAt(i + 1);
      if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) return s;
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      scratch[n++] = 0xf0 | (cp >> 18);
      scratch[n++] = 0x80 | ((cp >> 12) & 0x3f);
      scratch[n++] = 0x80 | ((cp >> 6) & 0x3f);
      scratch[n++] = 0x80 | (cp & 0x3f);
      i++;
    } else {
      scratch[n++] = 0xe0 | (c >> 12);
      scratch[n++] = 0x80 | ((c >> 6) & 0x3f);
      scratch[n++] = 0x80 | (c & 0x3f);
    }
  }
  return pending > 0 ? s : scratch.toString('utf8', 0, n);
}

export const STRING_FUNCTIONS = {
  lower: { min: 1, max: 1, signature: 'lower(s)', aliases: ['tolower'], factory: textUnary(lower) },
  upper: { min: 1, max: 1, signature: 'upper(s)', aliases: ['toupper'], factory: textUnary(upper) },
  len: { min: 1, max: 1, signature: 'len(s)', aliases: ['length', 'strlen'], factory: textUnary(len, 'number') },
  trim: { min: 1, max: 1, signature: 'trim(s)', factory: textUnary(trim) },
  ltrim: { min: 1, max: 1, signature: 'ltrim(s)', factory: textUnary(ltrim) },
  rtrim: { min: 1, max: 1, signature: 'rtrim(s)', factory: textUnary(rtrim) },
  substr: { min: 2, max: 3, signature: 'substr(s, start[, len])', aliases: ['substring'], factory: substr },
  split: { min: 3, max: 3, signature: 'split(s, sep, index)', factory: split },
  contains: { min: 2, max: 2, signature: 'contains(s, sub)', factory: textPredicate((s, t) => s.includes(t)) },
  startswith: { min: 2, max: 2, signature: 'startswith(s, prefix)', factory: textPredicate((s, t) => s.startsWith(t)) },
  endswith: { min: 2, max: 2, signature: 'endswith(s, suffix)', factory: textPredicate((s, t) => s.endsWith(t)) },
  concat: { min: 1, max: Infinity, signature: 'concat(a, b, ...)', aliases: ['strcat'], factory: concat },
  url_decode: { min: 1, max: 1, signature: 'url_decode(s)', aliases: ['urldecode'], factory: textUnary(urlDecode) },
} satisfies ScalarFamily;
