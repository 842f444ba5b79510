// A cursor-based JSON reader over a string that never throws: every scan returns the offset after
// what it read, or -1 when the text is not valid JSON there. json_extract() and `parse json` use it to
// walk only what they need, without JSON.parse (which throws, and builds the whole document).

import type { Value } from '../value';

/** Containers nested deeper than this are treated as invalid (the skipper keeps a fixed stack). */
export const MAX_JSON_NESTING = 512;
const stack = new Uint8Array(MAX_JSON_NESTING);

export function skipWs(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** s[i] is `"`: the offset after the closing quote, or -1. */
export function scanString(s: string, i: number): number {
  const n = s.length;
  for (i++; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) return i + 1;
    if (c < 32) return -1;
    if (c === 92) {
      const e = s.charCodeAt(++i);
      if (e === 117) {
        if (!(isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2)) && isHex(s.charCodeAt(i + 3)) && isHex(s.charCodeAt(i + 4))))
          return -1;
        i += 4;
      } else if (!(e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116)) {
        return -1;
      }
    }
  }
  return -1;
}

/** The text of the string token s[start, end) (quotes included). */
export function decodeString(s: string, start: number, end: number): string {
  const body = s.slice(start + 1, end - 1);
  if (body.indexOf('\\') < 0) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i]!;
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u':
        out += String.fromCharCode(parseInt(body.slice(i + 1, i + 5), 16));
        i += 4;
        break;
      default:
        out += e;
    }
  }
  return out;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A number token at i: the offset after it, or -1. */
export function scanNumber(s: string, i: number): number {
  if (s.charCodeAt(i) === 45) i++;
  const c = s.charCodeAt(i);
  if (c === 48) i++;
  else if (c >= 49 && c <= 57) while (isDigit(s.charCodeAt(i))) i++;
  else return -1;
  if (s.charCodeAt(i) === 46) {
    i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  const e = s.charCodeAt(i);
  if (e === 101 || e === 69) {
    i++;
    const sign = s.charCodeAt(i);
    if (sign === 43 || sign === 45) i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    while (isDigit(s.charCodeAt(i))) i++;
  }
  return i;
}

/**
 * The value of the number token s[start, end): a number, except an integer too large to be exact
 * (beyond ±(2^53 - 1)) or a token whose number is not finite, which keep their text.
 */
export function numberValue(s: string, start: number, end: number): Value {
  const text = s.slice(start, end);
  const x = Number(text);
  if (!Number.isFinite(x)) return text;
  if (Number.isInteger(x) && !Number.isSafeInteger(x) && /^-?\d+$/.test(text)) return text;
  return x === 0 ? 0 : x;
}

/** Any JSON value at i (after optional whitespace): the offset after it, or -1. Iterative. */
export function skipValue(s: string, i: number): number {
  let depth = 0;
  for (;;) {
    i = skipWs(s, i);
    let c = s.charCodeAt(i);
    if (c === 123 || c === 91) {
      // { [
      const close = c === 123 ? 125 : 93;
      i = skipWs(s, i + 1);
      if (s.charCodeAt(i) === close) {
        i++;
      } else {
        if (depth >= MAX_JSON_NESTING) return -1;
        stack[depth++] = c === 123 ? 1 : 2;
        if (c === 123) {
          i = memberKey(s, i);
          if (i < 0) return -1;
        }
        continue;
      }
    } else if (c === 34) {
      i = scanString(s, i);
    } else if (c === 45 || isDigit(c)) {
      i = scanNumber(s, i);
    } else if (c === 116 && s.startsWith('true', i)) {
      i += 4;
    } else if (c === 102 && s.startsWith('false', i)) {
      i += 5;
    } else if (c === 110 && s.startsWith('null', i)) {
      i += 4;
    } else {
      return -1;
    }
    if (i < 0) return -1;
    // A value ended: close containers or go on to the next element.
    for (;;) {
      if (depth === 0) return i;
      i = skipWs(s, i);
      c = s.charCodeAt(i);
      const inObject = stack[depth - 1] === 1;
      if (c === 44) {
        i++;
        if (inObject) {
          i = memberKey(s, skipWs(s, i));
          if (i < 0) return -1;
        }
        break;
      }
      if (c === (inObject ? 125 : 93)) {
        i++;
        depth--;
        continue;
      }
      return -1;
    }
  }
}

/** `"key" :` at i: the offset after the colon, or -1. */
function memberKey(s: string, i: number): number {
  if (s.charCodeAt(i) !== 34) return -1;
  i = scanString(s, i);
  if (i < 0) return -1;
  i = skipWs(s, i);
  return s.charCodeAt(i) === 58 ? i + 1 : -1;
}

/** The JSON text s[start, end) without whitespace outside strings (as JSON.stringify writes it). */
export function compactJson(s: string, start: number, end: number): string {
  let ws = false;
  for (let i = start; i < end && !ws; i++) {
    const c = s.charCodeAt(i);
    ws = c === 32 || c === 10 || c === 13 || c === 9;
  }
  if (!ws) return s.slice(start, end);
  let out = '';
  let from = start;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      i = scanString(s, i) - 1;
    } else if (c === 32 || c === 10 || c === 13 || c === 9) {
      out += s.slice(from, i);
      from = i + 1;
    }
  }
  return out + s.slice(from, end);
}

/**
 * The scalar at the value token at i (already validated up to `end`): strings decoded, numbers per
 * numberValue, true/false, and null for null; objects and arrays as compact JSON text.
 */
export function tokenValue(s: string, i: number, end: number): Value {
  const c = s.charCodeAt(i);
  if (c === 34) return decodeString(s, i, end);
  if (c === 116) return true;
  if (c === 102) return false;
  if (c === 110) return null;
  if (c === 123 || c === 91) return compactJson(s, i, end);
  return numberValue(s, i, end);
}
