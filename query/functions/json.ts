// json_extract(s, "$.a.b[0]"): one value out of JSON text, walking only the path (jsonscan.ts).

import type { Value } from '../value';
import { fn } from './common';
import { decodeString, scanString, skipValue, skipWs, tokenValue } from './jsonscan';
import { FunctionArgumentError, type ScalarFactory, type ScalarFamily } from './types';

/** One step of a path: a member name, or an array index (>= 0). */
export interface PathStep {
  key: string | null;
  index: number;
}

/**
 * Paths: `$` then any of `.name` (a name is any run of characters other than `.` and `[`), `['name']`,
 * `["name"]` (backslash escapes the quote) and `[n]` (0-based; `[-1]` is the last element). Null for
 * a path that is not of this form.
 */
export function compilePath(path: string): PathStep[] | null {
  if (path.charCodeAt(0) !== 36) return null;
  const steps: PathStep[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      let j = i + 1;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      if (j === i + 1) return null;
      steps.push({ key: path.slice(i + 1, j), index: -1 });
      i = j;
    } else if (c === '[') {
      const q = path[i + 1];
      if (q === '"' || q === "'") {
        let key = '';
        let j = i + 2;
        for (; j < path.length && path[j] !== q; j++) {
          if (path[j] === '\\' && j + 1 < path.length) j++;
          key += path[j];
        }
        if (path[j] !== q || path[j + 1] !== ']') return null;
        steps.push({ key, index: -1 });
        i = j + 2;
      } else {
        const m = /^\[(-?\d+)\]/.exec(path.slice(i, i + 20));
        if (!m) return null;
        steps.push({ key: null, index: Number(m[1]) });
        i += m[0].length;
      }
    } else {
      return null;
    }
  }
  return steps;
}

/**
 * The value at the path in the JSON text: scalars as they are (strings, numbers, booleans; JSON null
 * is null), objects and arrays as compact JSON text. Null when the text is not JSON along the way, the
 * path is missing, or s is not a string. With duplicate member names the first one is taken. Only the
 * part of the text the path goes through is read, so text after the target is not checked.
 */
export function extractPath(s: string, steps: readonly PathStep[]): Value {
  let i = skipWs(s, 0);
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k]!;
    i = step.key !== null ? findMember(s, i, step.key) : findElement(s, i, step.index);
    if (i < 0) return null;
  }
  const end = skipValue(s, i);
  if (end < 0) return null;
  // The token must end where JSON allows (`{"a": 01}` is not 0).
  const next = s.charCodeAt(skipWs(s, end));
  if (!(next !== next || next === 44 || next === 125 || next === 93)) return null;
  return tokenValue(s, i, end);
}

/** At an object at i: the offset of the value of member `key`, or -1. */
function findMember(s: string, i: number, key: string): number {
  if (s.charCodeAt(i) !== 123) return -1;
  i = skipWs(s, i + 1);
  if (s.charCodeAt(i) === 125) return -1;
  for (;;) {
    if (s.charCodeAt(i) !== 34) return -1;
    const keyEnd = scanString(s, i);
    if (keyEnd < 0) return -1;
    const same = hasEscape(s, i, keyEnd) ? decodeString(s, i, keyEnd) === key : keyEnd - i - 2 === key.length && s.startsWith(key, i + 1);
    i = skipWs(s, keyEnd);
    if (s.charCodeAt(i) !== 58) return -1;
    i = skipWs(s, i + 1);
    if (same) return i;
    i = skipValue(s, i);
    if (i < 0) return -1;
    i = skipWs(s, i);
    const c = s.charCodeAt(i);
    if (c !== 44) return -1; // `}` (not found) or invalid
    i = skipWs(s, i + 1);
  }
}

function hasEscape(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (s.charCodeAt(i) === 92) return true;
  return false;
}

/** At an array at i: the offset of element `index` (negative counts from the end), or -1. */
function findElement(s: string, i: number, index: number): number {
  if (s.charCodeAt(i) !== 91) return -1;
  if (index < 0) {
    let count = 0;
    let j = skipWs(s, i + 1);
    if (s.charCodeAt(j) !== 93) {
      for (;;) {
        j = skipValue(s, j);
        if (j < 0) return -1;
        count++;
        j = skipWs(s, j);
        if (s.charCodeAt(j) === 93) break;
        if (s.charCodeAt(j) !== 44) return -1;
        j++;
      }
    }
    index += count;
    if (index < 0) return -1;
  }
  i = skipWs(s, i + 1);
  if (s.charCodeAt(i) === 93) return -1;
  for (let k = 0; ; k++) {
    if (k === index) return i;
    i = skipValue(s, i);
    if (i < 0) return -1;
    i = skipWs(s, i);
    if (s.charCodeAt(i) !== 44) return -1;
    i = skipWs(s, i + 1);
  }
}

export const json_extract: ScalarFactory = (site) => {
  const constant = site.constants[1];
  if (typeof constant === 'string') {
    const steps = compilePath(constant);
    if (steps === null) {
      throw new FunctionArgumentError(
        `json_extract(): invalid path ${JSON.stringify(constant)}; write it as "$.a.b[0]"`,
        'E005',
        1,
        '"$.a.b[0]"',
      );
    }
    return fn('any', (args) => {
      const s = args[0]!;
      return typeof s === 'string' ? extractPath(s, steps) : null;
    });
  }
  if (constant !== undefined) return fn('any', () => null);
  let lastPath: string | null = null;
  let lastSteps: PathStep[] | null = null;
  return fn('any', (args) => {
    const s = args[0]!;
    const path = args[1]!;
    if (typeof s !== 'string' || typeof path !== 'string') return null;
    if (path !== lastPath) {
      lastSteps = compilePath(path);
      lastPath = path;
    }
    return lastSteps === null ? null : extractPath(s, lastSteps);
  });
};

export const JSON_FUNCTIONS = {
  json_extract: { min: 2, max: 2, signature: 'json_extract(s, "$.a.b")', aliases: ['parse_json'], factory: json_extract },
} satisfies ScalarFamily;
