// Helpers shared by the aggregate states: reading numbers, compensated sums, checking partial JSON.

import { toNumber, type Value } from '../value';
import type { AggregateFactory, AggregateSite, AggregateState } from './types';

/**
 * The number an aggregate sees in a value: toNumber's (numbers, numeric strings, booleans as 1/0), or
 * NaN for anything else. Infinities count as non-numeric (no finite statistic can hold them, and JSON
 * partials cannot carry them).
 */
export function numericValue(v: Value): number {
  if (typeof v === 'number') return Number.isFinite(v) ? v : NaN;
  if (v === null) return NaN;
  const x = toNumber(v);
  return x !== null && Number.isFinite(x) ? x : NaN;
}

/** A partial state that does not have the expected form (a bug or a version mismatch between nodes). */
export function badPartial(name: string, json: unknown): Error {
  const text = JSON.stringify(json);
  return new Error(`invalid partial state for ${name}(): ${text === undefined ? String(json) : text.slice(0, 200)}`);
}

export function isRecord(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json);
}

/** A number for JSON: infinities and NaN (an overflowing sum) as their text, which JSON can carry. */
export function encodeNumber(x: number): number | string {
  return Number.isFinite(x) ? x : String(x);
}

/** A number field of a partial (as encodeNumber wrote it), or throws. */
export function numberField(json: Record<string, unknown>, key: string, name: string): number {
  const v = json[key];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (v === 'Infinity' || v === '-Infinity' || v === 'NaN') return Number(v);
  throw badPartial(name, json);
}

/** A stored field value (string, number, boolean) or null, or throws. */
export function valueField(json: Record<string, unknown>, key: string, name: string): Value {
  const v = json[key];
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw badPartial(name, json);
}

/**
 * Neumaier's compensated sum: the running sum plus a correction, so that sums of many values (and
 * of partials in any order) lose almost nothing to rounding.
 */
export class CompensatedSum {
  sum = 0;
  c = 0;

  add(x: number): void {
    const t = this.sum + x;
    if (Math.abs(this.sum) >= Math.abs(x)) this.c += this.sum - t + x;
    else this.c += x - t + this.sum;
    this.sum = t;
  }

  value(): number {
    return this.sum + this.c;
  }
}

/** A factory whose states are made by one class constructor and restored by a static reader. */
export function factory<S extends AggregateState>(
  resultType: AggregateFactory['resultType'],
  create: (site: AggregateSite) => S,
  fromJSON: (site: AggregateSite, json: unknown) => S,
): AggregateFactory {
  return { resultType, create, fromJSON };
}
