// Numeric functions. Arguments go through toNumber: numbers as they are, strings that read as numbers
// are numbers, booleans are 1/0, anything else (and null) gives null. Invalid math (sqrt(-1), ln(0),
// pow(0, -1), overflow to infinity) gives null: no NaN or infinity ever leaves a function. -0 is 0.

import { toNumber, type StaticType, type Value } from '../value';
import { finite, fn, isTimeArg, textOf } from './common';
import type { FunctionSite, ScalarFactory, ScalarFamily } from './types';

/** tonumber(x): the number x reads as, or null. A `time` value gives its microseconds. */
export const tonumber: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(x);
  });

/** toint(x): the number truncated toward zero (as KQL's toint): toint("3.9") = 3, toint(-3.9) = -3. */
export const toint: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(Math.trunc(x));
  });

/** tostring(x): the text of x; a `time`-typed value as ISO 8601 (formatTime). */
export const tostring: ScalarFactory = (site) => {
  const time = isTimeArg(site, 0);
  return fn('string', (args) => textOf(args[0]!, time));
};

/** Multiplying by 1 + 2 ulp first makes 1.005 (stored as 1.00499...) round to 1.01 as written. */
const NUDGE = 1 + 2 * Number.EPSILON;

/**
 * round(x[, digits]): half away from zero (round(2.5) = 3, round(-2.5) = -3); digits may be negative
 * (round(1234, -2) = 1200) and are truncated to an integer; more than 15 digits leaves x as it is.
 */
export function roundHalfAway(x: number, digits: number): number {
  if (digits > 15) return x;
  const ax = Math.abs(x);
  // Past 2^52 a double has no fraction left to round (and the nudge would change it).
  const scale = digits >= 0 ? 10 ** digits : 10 ** -digits;
  const scaled = digits >= 0 ? ax * scale : ax / scale;
  if (scaled >= 2 ** 52) return x;
  const n = Math.floor(scaled * NUDGE + 0.5);
  const r = digits >= 0 ? n / scale : n * scale;
  return x < 0 && r !== 0 ? -r : r;
}

export const round: ScalarFactory = (site) => {
  const withDigits = site.argTypes.length > 1;
  return fn('number', (args) => {
    const x = toNumber(args[0]!);
    if (x === null) return null;
    let digits = 0;
    if (withDigits) {
      const d = toNumber(args[1]!);
      if (d === null || !Number.isFinite(d)) return null;
      digits = Math.trunc(d);
    }
    return finite(roundHalfAway(x, digits));
  });
};

// Each function is written out so that its call stays monomorphic.
export const floor: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(Math.floor(x));
  });
export const ceil: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(Math.ceil(x));
  });
export const abs: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(Math.abs(x));
  });
export const sqrt: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(Math.sqrt(x));
  });
/** ln(x) and log10(x): null for x <= 0. */
export const ln: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(Math.log(x));
  });
export const log10: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(Math.log10(x));
  });
export const exp: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    return x === null ? null : finite(Math.exp(x));
  });
/** pow(x, y): null when the result is not a finite number (pow(-8, 1/3), pow(0, -1)). */
export const pow: ScalarFactory = () =>
  fn('number', (args) => {
    const x = toNumber(args[0]!);
    const y = toNumber(args[1]!);
    return x === null || y === null ? null : finite(x ** y);
  });

/**
 * least/greatest(a, b, ...): nulls are ignored (all null gives null). When every other argument reads
 * as a number (numbers, numeric strings, booleans) they compare as numbers and the result is a number;
 * when they are all strings and some string is not numeric, they compare as strings (code unit order);
 * a mix of numbers and non-numeric strings compares the numeric ones only.
 */
function extremum(sign: 1 | -1): ScalarFactory {
  return (site: FunctionSite) => {
    const resultType = extremumType(site);
    return fn(resultType, (args): Value => {
      let best = NaN;
      let numeric = 0;
      let nonNull = 0;
      let strings = 0;
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!;
        if (v === null) continue;
        nonNull++;
        if (typeof v === 'string') strings++;
        const x = toNumber(v);
        if (x === null || !Number.isFinite(x)) continue;
        numeric++;
        if (numeric === 1 || (sign > 0 ? x > best : x < best)) best = x;
      }
      if (nonNull === 0) return null;
      if (numeric === nonNull || strings < nonNull) return numeric === 0 ? null : best;
      let text: string | null = null;
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!;
        if (typeof v !== 'string') continue;
        if (text === null || (sign > 0 ? v > text : v < text)) text = v;
      }
      return text;
    });
  };
}

function extremumType(site: FunctionSite): StaticType {
  let type: StaticType | null = null;
  for (const t of site.argTypes) {
    if (t !== 'time' && t !== 'number') return 'any';
    if (type === null) type = t;
    else if (t !== type) return 'number';
  }
  return type ?? 'any';
}

export const NUMERIC_FUNCTIONS = {
  tonumber: { min: 1, max: 1, signature: 'tonumber(x)', aliases: ['todouble', 'toreal', 'todecimal'], factory: tonumber },
  toint: { min: 1, max: 1, signature: 'toint(x)', aliases: ['tolong'], factory: toint },
  tostring: { min: 1, max: 1, signature: 'tostring(x)', factory: tostring },
  round: { min: 1, max: 2, signature: 'round(x[, digits])', factory: round },
  floor: { min: 1, max: 1, signature: 'floor(x)', factory: floor },
  ceil: { min: 1, max: 1, signature: 'ceil(x)', aliases: ['ceiling'], factory: ceil },
  abs: { min: 1, max: 1, signature: 'abs(x)', factory: abs },
  sqrt: { min: 1, max: 1, signature: 'sqrt(x)', factory: sqrt },
  ln: { min: 1, max: 1, signature: 'ln(x)', aliases: ['log'], factory: ln },
  log10: { min: 1, max: 1, signature: 'log10(x)', factory: log10 },
  exp: { min: 1, max: 1, signature: 'exp(x)', factory: exp },
  pow: { min: 2, max: 2, signature: 'pow(x, y)', aliases: ['power'], factory: pow },
  least: { min: 1, max: Infinity, signature: 'least(a, b, ...)', factory: extremum(-1) },
  greatest: { min: 1, max: Infinity, signature: 'greatest(a, b, ...)', factory: extremum(1) },
} satisfies ScalarFamily;
