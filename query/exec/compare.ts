/**
 * Comparison semantics (docs/language.md): numbers compare numerically, also against a string that
 * reads as a number; strings compare case-sensitively in code-unit order; anything with null is
 * unknown (null), which `where` treats as false. Times are microseconds: a time compared with an
 * ISO 8601 string or an epoch number compares instants.
 */
import type { Value } from '../value';
import { stringToNumber } from './access';

/** -1, 0, 1, or NaN when the two cannot be ordered (a null, or a boolean against a non-boolean). */
export function compareValues(a: Value, b: Value): number {
  if (a === null || b === null) return NaN;
  if (typeof a === 'number') {
    if (typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
    if (typeof b === 'string') {
      const n = stringToNumber(b);
      if (!Number.isNaN(n)) return a < n ? -1 : a > n ? 1 : 0;
      return compareStrings(String(a), b);
    }
    return NaN;
  }
  if (typeof a === 'string') {
    if (typeof b === 'string') return compareStrings(a, b);
    if (typeof b === 'number') {
      const n = stringToNumber(a);
      if (!Number.isNaN(n)) return n < b ? -1 : n > b ? 1 : 0;
      return compareStrings(a, String(b));
    }
    return compareStrings(a, b ? 'true' : 'false');
  }
  // a is boolean
  if (typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (typeof b === 'string') return compareStrings(a ? 'true' : 'false', b);
  return NaN;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export type ComparisonOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** Applies an operator to a comparison outcome: 1 true, 0 false, 2 unknown (null). */
export function comparisonResult(op: ComparisonOp, order: number): 0 | 1 | 2 {
  if (Number.isNaN(order)) return 2;
  switch (op) {
    case '=':
      return order === 0 ? 1 : 0;
    case '!=':
      return order !== 0 ? 1 : 0;
    case '<':
      return order < 0 ? 1 : 0;
    case '<=':
      return order <= 0 ? 1 : 0;
    case '>':
      return order > 0 ? 1 : 0;
    case '>=':
      return order >= 0 ? 1 : 0;
  }
}

/** Numeric comparison on numbers already read (NaN = null). */
export function compareNumbers(op: ComparisonOp, a: number, b: number): 0 | 1 | 2 {
  if (Number.isNaN(a) || Number.isNaN(b)) return 2;
  switch (op) {
    case '=':
      return a === b ? 1 : 0;
    case '!=':
      return a !== b ? 1 : 0;
    case '<':
      return a < b ? 1 : 0;
    case '<=':
      return a <= b ? 1 : 0;
    case '>':
      return a > b ? 1 : 0;
    case '>=':
      return a >= b ? 1 : 0;
  }
}

/**
 * A value as a time in microseconds: numbers are epoch seconds (the convention of `_time > 1700000000`),
 * strings are ISO 8601 or epoch seconds; NaN otherwise.
 */
export function valueToTimeMicros(value: Value): number {
  if (typeof value === 'number') return Math.round(value * 1_000_000);
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (/^\d{9,11}(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1_000_000);
    const withZone = /[zZ]|[+-]\d{2}:?\d{2}$/.test(trimmed) || trimmed.length <= 10 ? trimmed : `${trimmed}Z`;
    const ms = Date.parse(withZone);
    if (Number.isNaN(ms)) return NaN;
    const fraction = /\.(\d{4,6})/.exec(trimmed);
    // Date.parse keeps milliseconds; add back the microseconds it drops.
    const extra = fraction === null ? 0 : Number(fraction[1].padEnd(6, '0').slice(3, 6));
    return ms * 1000 + extra;
  }
  return NaN;
}
