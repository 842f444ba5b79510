// Helpers shared by the extractors: the numeric-capture rule and safe field assignment.

import type { Value } from '../value';

/** Decimals with more significant digits than this would not survive as a double: they stay text. */
const MAX_DECIMAL_DIGITS = 15;

/**
 * "Numeric-looking captures become numbers": a capture that is a plain decimal number (`42`, `-7`,
 * `3.25`, `0.5`) becomes a number; anything else stays text: a leading zero (`007`, zip codes, ids),
 * exponents (`1e5`), hex (`0x10`), a leading `+` or `.`, a trailing `.`, thousands separators, IPs and
 * versions (`10.0.0.1`, `1.2.3`), integers beyond ±(2^53 - 1) and decimals of more than 15 digits
 * (they would lose digits), and the empty string.
 */
export function captureValue(s: string): Value {
  const n = s.length;
  if (n === 0 || n > 32) return s;
  let i = s.charCodeAt(0) === 45 ? 1 : 0;
  const first = s.charCodeAt(i);
  if (!(first >= 48 && first <= 57)) return s;
  if (first === 48 && i + 1 < n && s.charCodeAt(i + 1) !== 46) return s; // 007, 0x10
  let digits = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    digits++;
  }
  if (i === n) {
    const x = Number(s);
    return Number.isSafeInteger(x) ? (x === 0 ? 0 : x) : s;
  }
  if (s.charCodeAt(i) !== 46 || i + 1 === n) return s;
  for (i++; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return s;
    digits++;
  }
  if (digits > MAX_DECIMAL_DIGITS) return s;
  const x = Number(s);
  return x === 0 ? 0 : x;
}

/** Sets a field whose name comes from the text: `__proto__` becomes an own field, not the prototype. */
export function setField(out: Record<string, Value>, key: string, value: Value): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    out[key] = value;
  }
}
