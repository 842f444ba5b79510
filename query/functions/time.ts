// Time functions. A `time`-typed value is microseconds since the epoch (UTC); duration literals are
// microseconds too.

import { toNumber, type StaticType, type Value } from '../value';
import { breakDown, MAX_MICROS, MICROS_PER_SECOND, parseIsoMicros, parts } from './calendar';
import { finite, fn, textOf } from './common';
import { compileStrftime, runStrftime, type CompiledStrftime } from './strftime';
import { compileStrptime, runStrptime, type CompiledStrptime } from './strptime';
import type { FunctionSite, ScalarFactory, ScalarFamily } from './types';

/** now(): the query's clock (one value for the whole query), a time. */
export const now: ScalarFactory = (site) => {
  const micros = site.ctx.nowMicros;
  return fn('time', () => micros);
};

/**
 * bin(t, size): t floored to a multiple of size (t - t mod size, also for negative t), keeping t's
 * type: bin(_time, 5m) is a time, bin(ms, 100) a number (numeric buckets, as KQL's bin). The size is a
 * duration (microseconds) or a positive number in the unit of t, so for a time a plain number is
 * microseconds too. Strings that read as numbers are numbers; a size <= 0 gives null.
 */
export const bin: ScalarFactory = (site) => {
  const t = site.argTypes[0];
  const resultType: StaticType = t === 'time' || t === 'number' ? t : 'number';
  return fn(resultType, (args) => {
    const x = toNumber(args[0]!);
    const size = toNumber(args[1]!);
    if (x === null || size === null || !(size > 0) || !Number.isFinite(x) || !Number.isFinite(size)) return null;
    let mod = x % size;
    if (mod < 0) mod += size;
    return finite(x - mod);
  });
};

/**
 * The microseconds of a time argument: a `time`-typed number as it is; any other number (or numeric
 * string) is epoch seconds (fractions allowed); a string is ISO 8601 (see parseIsoMicros). Null for
 * anything else or outside the representable range.
 */
export function timeArgument(v: Value, timeTyped: boolean): number | null {
  let micros: number;
  if (typeof v === 'number') micros = timeTyped ? v : v * MICROS_PER_SECOND;
  else if (typeof v === 'string') {
    micros = parseIsoMicros(v);
    if (Number.isNaN(micros)) {
      const seconds = toNumber(v);
      if (seconds === null) return null;
      micros = timeTyped ? seconds : seconds * MICROS_PER_SECOND;
    }
  } else return null;
  return Number.isFinite(micros) && Math.abs(micros) <= MAX_MICROS ? micros : null;
}

/** A compiled format per distinct text for formats computed per row (the last one is kept). */
function cached<T>(compile: (f: string) => T): (f: string) => T {
  let lastText: string | null = null;
  let last: T | null = null;
  return (f) => {
    if (f !== lastText || last === null) {
      last = compile(f);
      lastText = f;
    }
    return last;
  };
}

/** strftime(t, format): the time formatted in UTC (directives in strftime.ts). */
export const strftime: ScalarFactory = (site: FunctionSite) => {
  const timeTyped = site.argTypes[0] === 'time';
  const constant = site.constants[1];
  if (typeof constant === 'string') {
    const compiled = compileStrftime(constant);
    return fn('string', (args) => {
      const micros = timeArgument(args[0]!, timeTyped);
      return micros === null ? null : runStrftime(compiled, micros);
    });
  }
  if (constant !== undefined) return fn('string', () => null);
  const compile = cached<CompiledStrftime>(compileStrftime);
  return fn('string', (args) => {
    const micros = timeArgument(args[0]!, timeTyped);
    const format = args[1]!;
    return micros === null || typeof format !== 'string' ? null : runStrftime(compile(format), micros);
  });
};

/** strptime(s, format): the time s reads as with the format (strptime.ts), null when it does not match. */
export const strptime: ScalarFactory = (site: FunctionSite) => {
  breakDown(site.ctx.nowMicros);
  const year = parts.year;
  const constant = site.constants[1];
  if (typeof constant === 'string') {
    const compiled = compileStrptime(constant);
    return fn('time', (args) => {
      const s = textOf(args[0]!, false);
      return s === null ? null : runStrptime(compiled, s, year);
    });
  }
  if (constant !== undefined) return fn('time', () => null);
  const compile = cached<CompiledStrptime>(compileStrptime);
  return fn('time', (args) => {
    const s = textOf(args[0]!, false);
    const format = args[1]!;
    return s === null || typeof format !== 'string' ? null : runStrptime(compile(format), s, year);
  });
};

export const TIME_FUNCTIONS = {
  now: { min: 0, max: 0, signature: 'now()', aliases: [{ name: 'ago', suggestion: 'now() - 1h' }], factory: now },
  bin: { min: 2, max: 2, signature: 'bin(t, duration)', aliases: ['bucket', 'floor_time'], factory: bin },
  strftime: { min: 2, max: 2, signature: 'strftime(t, format)', factory: strftime },
  strptime: { min: 2, max: 2, signature: 'strptime(s, format)', factory: strptime },
} satisfies ScalarFamily;
