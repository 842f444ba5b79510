// `parse json(f)`: the members of a JSON object as fields, flattened like ingest does
// (node/ingest/flatten.ts): nested objects become dotted names (`a.b.c`), arrays stay as their compact
// JSON text, JSON null is absent, strings/numbers/booleans keep their type (a JSON string "42" stays a
// string: the numeric-capture rule is for text captures, and JSON already says what is a number),
// except integers beyond ±(2^53 - 1), which keep their digits as text instead of losing them.
// Objects nested deeper than MAX_FLATTEN_DEPTH are kept as JSON text; empty member names and empty
// nested objects give nothing; a repeated name keeps the last value (as JSON.parse).
// A text that is not exactly one JSON object (with optional surrounding whitespace) gives no fields.

import { decodeString, scanString, skipValue, skipWs, tokenValue } from '../functions/jsonscan';
import type { Value } from '../value';
import { setField } from './common';
import type { Extractor } from './types';

export const MAX_FLATTEN_DEPTH = 16;
export const MAX_FIELDS = 1000;
const hasOwn = Object.prototype.hasOwnProperty;

/** Walks the object at i into out; the offset after it, or -1 when the text is not valid JSON. */
function walkObject(s: string, i: number, prefix: string, depth: number, out: Record<string, Value>, count: { n: number }): number {
  i = skipWs(s, i + 1);
  if (s.charCodeAt(i) === 125) return i + 1;
  for (;;) {
    if (s.charCodeAt(i) !== 34) return -1;
    const keyEnd = scanString(s, i);
    if (keyEnd < 0) return -1;
    const key = decodeString(s, i, keyEnd);
    i = skipWs(s, keyEnd);
    if (s.charCodeAt(i) !== 58) return -1;
    i = skipWs(s, i + 1);
    const name = prefix + key;
    if (key !== '' && s.charCodeAt(i) === 123 && depth + 1 < MAX_FLATTEN_DEPTH) {
      i = walkObject(s, i, name + '.', depth + 1, out, count);
      if (i < 0) return -1;
    } else {
      const end = skipValue(s, i);
      if (end < 0) return -1;
      // An empty name or a JSON null gives nothing; past MAX_FIELDS new names are dropped.
      if (key !== '' && s.charCodeAt(i) !== 110) {
        const known = hasOwn.call(out, name);
        if (known || count.n < MAX_FIELDS) {
          if (!known) count.n++;
          setField(out, name, tokenValue(s, i, end));
        }
      }
      i = end;
    }
    i = skipWs(s, i);
    const c = s.charCodeAt(i);
    if (c === 125) return i + 1;
    if (c !== 44) return -1;
    i = skipWs(s, i + 1);
  }
}

export function jsonExtractor(): Extractor {
  return {
    fields: null,
    extract(text: string): Record<string, Value> {
      const start = skipWs(text, 0);
      if (text.charCodeAt(start) !== 123) return {};
      const out: Record<string, Value> = {};
      const end = walkObject(text, start, '', 0, out, { n: 0 });
      return end >= 0 && skipWs(text, end) === text.length ? out : {};
    },
  };
}
