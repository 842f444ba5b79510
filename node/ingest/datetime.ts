/**
 * Low-level calendar helpers for the ingest timestamp parsers: civil date -> epoch microseconds without
 * Date objects (the raw pipeline calls these once per line), digit readers over char codes, month and
 * weekday names, and year inference for formats that carry no year.
 */
import { daysFromCivil, daysInMonth } from '../../query/functions/calendar';

export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;

/** Accepted event times: 1970-01-01 (inclusive) to 2200-01-01 (exclusive). Outside is treated as garbage. */
export const MIN_EVENT_MICROS = 0;
export const MAX_EVENT_MICROS = 7_258_118_400 * MICROS_PER_SECOND;

export function isValidEventMicros(t: number): boolean {
  return Number.isSafeInteger(t) && t >= MIN_EVENT_MICROS && t < MAX_EVENT_MICROS;
}

// Civil-date arithmetic is the query functions' (one implementation for both layers).
export { daysFromCivil, daysInMonth, isLeapYear } from '../../query/functions/calendar';

/**
 * Validated civil time (UTC unless offsetMinutes) -> epoch micros, or NaN when a part is out of range or
 * the result falls outside the accepted event range. Second 60 (leap second) rolls into the next minute.
 */
export function civilMicros(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  micros: number,
  offsetMinutes: number,
): number {
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 60) return NaN;
  const seconds = ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi - offsetMinutes) * 60 + s;
  const t = seconds * MICROS_PER_SECOND + micros;
  return isValidEventMicros(t) ? t : NaN;
}

let cachedNow = NaN;
let cachedYear = 1970;

/** UTC year of an epoch-micros instant (cached: the pipeline asks with the same `now` for a whole body). */
export function yearOf(micros: number): number {
  if (micros !== cachedNow) {
    cachedNow = micros;
    cachedYear = new Date(Math.floor(micros / 1000)).getUTCFullYear();
  }
  return cachedYear;
}

/**
 * For formats without a year (syslog, logcat, Proxifier): the latest year that does not put the time more
 * than a day after `nowMicros` (the receive time). Looks back up to 8 years so that Feb 29 finds a leap year.
 */
export function inferYearMicros(mo: number, d: number, h: number, mi: number, s: number, micros: number, nowMicros: number): number {
  const limit = nowMicros + MICROS_PER_DAY;
  const y0 = yearOf(nowMicros);
  for (let y = y0 + 1; y >= y0 - 8; y--) {
    const t = civilMicros(y, mo, d, h, mi, s, micros, 0);
    if (t <= limit) return t; // NaN compares false
  }
  return NaN;
}

// ---- char-code readers: each returns -1 when the expected digits are not there ----

export function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isAlphaCode(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

export function isAlnumCode(c: number): boolean {
  return isDigitCode(c) || isAlphaCode(c);
}

/** `n` decimal digits at s[i..i+n) as a number, or -1. */
export function readDigits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i + k);
    if (c < 48 || c > 57) return -1; // NaN past the end also fails this test
    v = v * 10 + (c - 48);
  }
  return v;
}

/** Length of the run of digits starting at i (capped at `max`). */
export function digitRun(s: string, i: number, max: number): number {
  let n = 0;
  while (n < max && isDigitCode(s.charCodeAt(i + n))) n++;
  return n;
}

/** Fraction digits at i (after the separator): micros rounded from the 7th digit; `end` set past the digits. */
export interface Fraction {
  micros: number;
  end: number;
}

export function readFraction(s: string, i: number): Fraction | null {
  let j = i;
  let micros = 0;
  let n = 0;
  let roundUp = false;
  for (;;) {
    const c = s.charCodeAt(j);
    if (!(c >= 48 && c <= 57)) break;
    if (n < 6) micros = micros * 10 + (c - 48);
    else if (n === 6) roundUp = c >= 53;
    n++;
    j++;
  }
  if (n === 0) return null;
  for (let k = n; k < 6; k++) micros *= 10;
  return { micros: roundUp ? micros + 1 : micros, end: j };
}

/** `HH:MM:SS` at i: seconds of the day, or -1. */
export function readHms(s: string, i: number): number {
  const h = readDigits(s, i, 2);
  if (h < 0 || h > 23 || s.charCodeAt(i + 2) !== 58) return -1;
  const m = readDigits(s, i + 3, 2);
  if (m < 0 || m > 59 || s.charCodeAt(i + 5) !== 58) return -1;
  const sec = readDigits(s, i + 6, 2);
  if (sec < 0 || sec > 60) return -1;
  return h * 3600 + m * 60 + sec;
}

const MONTHS = new Map<number, number>();
const WEEKDAYS = new Set<number>();

function key3(a: string): number {
  return (a.charCodeAt(0) << 16) | (a.charCodeAt(1) << 8) | a.charCodeAt(2);
}

['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].forEach((m, k) => MONTHS.set(key3(m), k + 1));
['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].forEach((d) => WEEKDAYS.add(key3(d)));

function lowerKey3(s: string, i: number): number {
  const a = s.charCodeAt(i);
  const b = s.charCodeAt(i + 1);
  const c = s.charCodeAt(i + 2);
  if (!isAlphaCode(a) || !isAlphaCode(b) || !isAlphaCode(c)) return -1;
  return ((a | 32) << 16) | ((b | 32) << 8) | (c | 32);
}

/** Three-letter English month abbreviation at i (any case): 1..12, or 0. */
export function monthAt(s: string, i: number): number {
  const k = lowerKey3(s, i);
  return k < 0 ? 0 : (MONTHS.get(k) ?? 0);
}

export function isWeekdayAt(s: string, i: number): boolean {
  const k = lowerKey3(s, i);
  return k >= 0 && WEEKDAYS.has(k);
}

/**
 * Numeric zone offset at i: `Z`, `+HH`, `+HHMM`, `+HH:MM` (also `-`). Returns minutes east of UTC and the end,
 * or null when there is none.
 */
export interface ZoneOffset {
  minutes: number;
  end: number;
}

export function readZone(s: string, i: number): ZoneOffset | null {
  const c = s.charCodeAt(i);
  if (c === 90 || c === 122) return { minutes: 0, end: i + 1 };
  if (c !== 43 && c !== 45) return null;
  const h = readDigits(s, i + 1, 2);
  if (h < 0 || h > 23) return null;
  let j = i + 3;
  let m = 0;
  if (s.charCodeAt(j) === 58) {
    m = readDigits(s, j + 1, 2);
    if (m < 0) return null;
    j += 3;
  } else if (isDigitCode(s.charCodeAt(j))) {
    m = readDigits(s, j, 2);
    if (m < 0) return null;
    j += 2;
  }
  if (m > 59 || isDigitCode(s.charCodeAt(j))) return null;
  const minutes = h * 60 + m;
  return { minutes: c === 45 ? -minutes : minutes, end: j };
}
