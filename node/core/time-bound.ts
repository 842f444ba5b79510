/**
 * Time bounds in requests (`from`, `to`, `earliest`, `latest`, `since`): `now`, relative values
 * like `-1h`, `-30m`, `-7d` (also `now-1h`), absolute ISO 8601 / RFC 3339, or epoch seconds.
 */
import { validationError } from './errors';
import { parseDurationMs } from '../config/units';

const RELATIVE = /^(?:now)?\s*([+-])\s*(\d+(?:\.\d+)?\s*(?:ms|s|m|h|d|w|y))$/i;

/** The farthest a date reaches either way from the epoch (ECMAScript's Date: 100,000,000 days). */
export const MAX_DATE_MS = 8.64e15;

/** Milliseconds since the epoch, or a VALIDATION_ERROR naming the parameter. */
export function parseTimeBound(name: string, text: string, nowMs: number): number {
  const value = text.trim();
  if (value === '') throw validationError(`${name} is empty`);
  if (value.toLowerCase() === 'now') return nowMs;
  const relative = RELATIVE.exec(value);
  if (relative !== null) {
    const ms = parseDurationMs(relative[2].replace(/\s+/g, '')) as number;
    const bound = relative[1] === '-' ? nowMs - ms : nowMs + ms;
    // Past it a bound is no date: answers that show it as one (a histogram's buckets, a range's meta) could not.
    if (!(Math.abs(bound) <= MAX_DATE_MS)) throw validationError(`${name}: "${text}" is farther from now than a date can be`);
    return bound;
  }
  if (/^\d{9,11}(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const parsed = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) || value.length <= 10 ? value : `${value}Z`);
    if (!Number.isNaN(parsed)) return parsed;
  }
  throw validationError(`${name}: "${text}" is not a time (use now, -1h, -30m or an ISO 8601 timestamp)`);
}
