// `parse kv(f)` and `parse logfmt(f)`: key=value pairs.
//
// kv: pairs separated by whitespace, `,` or `;` (`a=1, b="x y"; c='z'`). A value is quoted with `"`
// or `'` (backslash escapes the quote and itself; an unclosed quote runs to the end) or runs to the
// next separator. Words without `=` are skipped. Keys are the characters before `=` (no separators or
// quotes).
// logfmt (github.com/go-logfmt): pairs separated by whitespace; `key=value`, `key="quoted \" value"`
// (escapes \" \\ \n \t \r \uXXXX), `key=` is the empty string, and a bare `key` is the boolean true.
// Both: unquoted values follow the numeric-capture rule (common.ts); quoted values stay text (the
// writer quoted them); an empty key gives nothing; a repeated key keeps the last value.

import type { Value } from '../value';
import { captureValue, setField } from './common';
import type { Extractor } from './types';

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function isKvSeparator(c: number): boolean {
  return isSpace(c) || c === 44 || c === 59;
}

// Quoted strings: the end offset of the last one read (module state: no allocation for a pair).
let quotedEnd = 0;

/** The text of the quoted string opening at s[i] (quote q), with its escapes; sets quotedEnd. */
function readQuoted(s: string, i: number, q: number, logfmt: boolean): string {
  let out = '';
  let from = i + 1;
  let j = from;
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === q) {
      quotedEnd = j + 1;
      return out + s.slice(from, j);
    }
    if (c !== 92 || j + 1 >= s.length) continue;
    out += s.slice(from, j);
    const e = s[j + 1]!;
    j++;
    if (logfmt && e === 'n') out += '\n';
    else if (logfmt && e === 't') out += '\t';
    else if (logfmt && e === 'r') out += '\r';
    else if (logfmt && e === 'u' && /^[0-9A-Fa-f]{4}$/.test(s.slice(j + 1, j + 5))) {
      out += String.fromCharCode(parseInt(s.slice(j + 1, j + 5), 16));
      j += 4;
    } else if (e === '"' || e === "'" || e === '\\') out += e;
    else out += `\\${e}`;
    from = j + 1;
  }
  quotedEnd = s.length;
  return out + s.slice(from);
}

function extractKv(s: string): Record<string, Value> {
  const out: Record<string, Value> = {};
  const n = s.length;
  let i = 0;
  while (i < n) {
    while (i < n && isKvSeparator(s.charCodeAt(i))) i++;
    const start = i;
    let c = s.charCodeAt(i);
    while (i < n && c !== 61 && c !== 34 && c !== 39 && !isKvSeparator(c)) c = s.charCodeAt(++i);
    if (i >= n) break;
    if (c !== 61) {
      // Not a pair: skip this word (a quoted one as a whole).
      if (c === 34 || c === 39) {
        readQuoted(s, i, c, false);
        i = quotedEnd;
      }
      while (i < n && !isKvSeparator(s.charCodeAt(i))) i++;
      continue;
    }
    const key = s.slice(start, i);
    i++;
    const q = s.charCodeAt(i);
    let value: Value;
    if (q === 34 || q === 39) {
      value = readQuoted(s, i, q, false);
      i = quotedEnd;
    } else {
      const from = i;
      while (i < n && !isKvSeparator(s.charCodeAt(i))) i++;
      value = captureValue(s.slice(from, i));
    }
    if (key !== '') setField(out, key, value);
  }
  return out;
}

function extractLogfmt(s: string): Record<string, Value> {
  const out: Record<string, Value> = {};
  const n = s.length;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(s.charCodeAt(i))) i++;
    const start = i;
    let c = s.charCodeAt(i);
    while (i < n && c !== 61 && c !== 34 && !isSpace(c)) c = s.charCodeAt(++i);
    const key = s.slice(start, i);
    if (i < n && c === 34) {
      // A quote inside a key is garbage: skip the quoted part and the rest of the word.
      readQuoted(s, i, 34, true);
      i = quotedEnd;
      while (i < n && !isSpace(s.charCodeAt(i))) i++;
      continue;
    }
    if (i >= n || c !== 61) {
      if (key !== '') setField(out, key, true);
      continue;
    }
    i++;
    let value: Value;
    if (s.charCodeAt(i) === 34) {
      value = readQuoted(s, i, 34, true);
      i = quotedEnd;
    } else {
      const from = i;
      while (i < n && !isSpace(s.charCodeAt(i))) i++;
      value = captureValue(s.slice(from, i));
    }
    if (key !== '') setField(out, key, value);
  }
  return out;
}

export function kvExtractor(): Extractor {
  return { fields: null, extract: extractKv };
}

export function logfmtExtractor(): Extractor {
  return { fields: null, extract: extractLogfmt };
}
