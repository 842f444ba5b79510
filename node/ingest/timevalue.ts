/**
 * Event times given as JSON values (native `time`, event-collector `time`, document keys such as
 * `@timestamp`). Decimal text is scaled digit by digit so that `1700000000.123456` keeps every microsecond.
 */
import { isValidEventMicros, MICROS_PER_SECOND } from './datetime';
import { detectLeadingTimestamp, parseIsoAt } from './timestamp';

const DECIMAL = /^(\d{1,25})(?:\.(\d{1,30}))?$/;

/**
 * A non-negative decimal (as text) times 10^shift, rounded half up to an integer; NaN if not decimal text.
 * shift 6: seconds -> micros, 3: millis, 0: micros, -3: nanos.
 */
export function scaleDecimal(text: string, shift: number): number {
  const m = DECIMAL.exec(text);
  if (!m) return NaN;
  const digits = m[1]! + (m[2] ?? '');
  const point = m[1]!.length + shift;
  if (point <= 0) return point === 0 && digits.charCodeAt(0) >= 53 ? 1 : 0;
  const whole = point >= digits.length ? digits + '0'.repeat(point - digits.length) : digits.slice(0, point);
  const roundUp = point < digits.length && digits.charCodeAt(point) >= 53;
  const v = Number(whole) + (roundUp ? 1 : 0);
  return Number.isFinite(v) ? v : NaN;
}

/** Decimal text of a finite non-negative JS number (shortest round-trip form), or undefined. */
function numberText(v: number): string | undefined {
  if (!Number.isFinite(v) || v < 0) return undefined;
  const t = String(v);
  return t.includes('e') ? undefined : t;
}

function valid(t: number): number {
  return isValidEventMicros(t) ? t : NaN;
}

/** Unix seconds (number or numeric string, fraction allowed) -> micros, NaN when not a valid event time. */
export function secondsToMicros(v: unknown): number {
  // A double holds seconds to ~0.24 us near 2024, so rounding the product is exact for up to 6 decimals.
  if (typeof v === 'number') return Number.isFinite(v) ? valid(Math.round(v * MICROS_PER_SECOND)) : NaN;
  if (typeof v === 'string') return valid(scaleDecimal(v.trim(), 6));
  return NaN;
}

/**
 * Epoch of unknown unit, chosen by magnitude: < 1e11 seconds, < 1e14 millis, < 1e17 micros, else nanos
 * (each boundary is far beyond year 2200 of the smaller unit).
 */
export function epochToMicros(text: string): number {
  const v = Number(text);
  if (!Number.isFinite(v) || v < 0) return NaN;
  const shift = v < 1e11 ? 6 : v < 1e14 ? 3 : v < 1e17 ? 0 : -3;
  return valid(scaleDecimal(text, shift));
}

/**
 * A document's time value: an epoch number or numeric string (unit by magnitude), an ISO 8601 string with
 * or without zone (a bare date is midnight UTC), or any whole string the line detector knows
 * (`Oct 11 22:14:15`, `10/Oct/2000:13:55:36 -0700`). NaN when none applies.
 */
export function parseTimeValue(v: unknown, nowMicros: number): number {
  if (typeof v === 'number') {
    const t = numberText(v);
    return t === undefined ? NaN : epochToMicros(t);
  }
  if (typeof v !== 'string') return NaN;
  const s = v.trim();
  if (s === '' || s.length > 64) return NaN;
  const c = s.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    if (DECIMAL.test(s)) return epochToMicros(s);
    const iso = parseIsoAt(s, 0, true);
    if (iso) return iso.end === s.length ? iso.micros : NaN;
  }
  const m = detectLeadingTimestamp(s, 0, nowMicros);
  return m && m.end === s.length ? m.micros : NaN;
}
