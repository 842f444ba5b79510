/**
 * Values in query evaluation. Stored values keep their own type (string, number, boolean); null
 * is absent. Times are numbers of microseconds since the epoch whose *static* type is `time`:
 * the planner infers static types, so `_time` compares with ISO strings and prints as ISO 8601,
 * while an ordinary number stays a number.
 */
import type { FieldValue } from '../storage/core/event';

export type Value = FieldValue | null;

/** What the planner knows of an expression's values before running it. */
export type StaticType = 'time' | 'number' | 'string' | 'boolean' | 'any';

/** Facts every evaluation shares: the query's clock and time range. */
export interface EvalContext {
  /** `now()` for the whole query, microseconds. */
  nowMicros: number;
  /** The query's time range [from, to), microseconds (used by `rate()`). */
  fromMicros: number;
  toMicros: number;
}

/** ISO 8601 text of a time in microseconds (millisecond precision, or microseconds when present). */
export function formatTime(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString();
  const extra = micros - ms * 1000;
  return extra === 0 ? iso : `${iso.slice(0, -1)}${String(extra).padStart(3, '0')}Z`;
}

/** A number read from a value: numbers as they are, numeric strings parsed, else null. */
export function toNumber(value: Value): number | null {
  if (typeof value === 'number') return Number.isNaN(value) ? null : value;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '') return null;
    const number = Number(trimmed);
    return Number.isNaN(number) ? null : number;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
}
