// Helpers shared by the scalar function families: text conversion, constant arguments, truth.

/** The Date range, ±8.64e15 ms, in microseconds: times outside it are not times. */
export const MAX_MICROS = 8.64e18;

import { formatTime, type StaticType, type Value } from '../value';
import { FunctionArgumentError, type FunctionSite, type ScalarFunction } from './types';

/** Every implementation returns objects of this one shape, so call sites see one hidden class. */
export function fn(resultType: StaticType, call: (args: readonly Value[]) => Value): ScalarFunction {
  return { resultType, call };
}

/**
 * The text of a value for string functions: strings as they are, numbers in JS form (a `time`-typed
 * number as ISO 8601), booleans as `true`/`false`; null stays null.
 */
export function textOf(v: Value, time: boolean): string | null {
  if (typeof v === 'string') return v;
  if (v === null) return null;
  if (typeof v === 'number') return time && Math.abs(v) <= MAX_MICROS ? formatTime(v) : String(v);
  return v ? 'true' : 'false';
}

export function isTimeArg(site: FunctionSite, i: number): boolean {
  return site.argTypes[i] === 'time';
}

/** Whether argument i is a constant (a literal after folding); a constant null counts. */
export function isConstant(site: FunctionSite, i: number): boolean {
  return site.constants[i] !== undefined;
}

/** A constant string argument (regexes, formats, paths), else E005 at plan time. */
export function constantString(site: FunctionSite, i: number, what: string): string {
  const c = site.constants[i];
  if (typeof c !== 'string') {
    throw new FunctionArgumentError(`the ${what} of ${site.name}() must be a string literal`, 'E005', i);
  }
  return c;
}

/** Conditions (if, case, countif): only boolean true is true; null and everything else is false. */
export function isTrue(v: Value): boolean {
  return v === true;
}

/** A finite number or null: invalid math (NaN, infinities) gives null. */
export function finite(x: number): number | null {
  return Number.isFinite(x) ? (x === 0 ? 0 : x) : null;
}

/**
 * The static type shared by the given arguments, ignoring constant nulls (`if(c, _time, null)` is
 * still a time); `any` when they differ.
 */
export function commonType(site: FunctionSite, indexes: readonly number[]): StaticType {
  let type: StaticType | null = null;
  for (const i of indexes) {
    if (site.constants[i] === null) continue;
    const t = site.argTypes[i] ?? 'any';
    if (type === null) type = t;
    else if (type !== t) return 'any';
  }
  return type ?? 'any';
}
