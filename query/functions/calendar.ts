// Proleptic Gregorian calendar arithmetic in UTC without Date objects (no allocation per row), after
// Howard Hinnant's days_from_civil / civil_from_days.

export const MICROS_PER_SECOND = 1e6;
export const MICROS_PER_DAY = 86400e6;
export { MAX_MICROS } from './common';

/** Days since 1970-01-01 of a civil date (month 1-12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1]!;
}

/**
 * The UTC fields of one time, filled by `breakDown` (one reused object: callers read the fields
 * before the next call, so nothing is allocated per row).
 */
export const parts = {
  year: 1970,
  month: 1,
  day: 1,
  hour: 0,
  minute: 0,
  second: 0,
  /** Microseconds within the second, 0-999999. */
  micros: 0,
  /** Day of the year, 1-366. */
  yday: 1,
  /** Day of the week, 0 = Sunday. */
  wday: 4,
  /** Whole seconds since the epoch (floored). */
  epochSeconds: 0,
};

/** Fills `parts` from a time in microseconds (integer part used; fractions of a microsecond dropped). */
export function breakDown(micros: number): void {
  const t = Math.floor(micros);
  const days = Math.floor(t / MICROS_PER_DAY);
  let rest = t - days * MICROS_PER_DAY;
  const secs = Math.floor(rest / MICROS_PER_SECOND);
  rest -= secs * MICROS_PER_SECOND;
  parts.micros = rest;
  parts.hour = Math.floor(secs / 3600);
  parts.minute = Math.floor((secs % 3600) / 60);
  parts.second = secs % 60;
  parts.epochSeconds = days * 86400 + secs;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  parts.year = y;
  parts.month = m;
  parts.day = d;
  parts.yday = days - daysFromCivil(y, 1, 1) + 1;
  parts.wday = (((days + 4) % 7) + 7) % 7;
}

function digitAt(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/** The value of `count` digits at s[i..], or -1. */
function digits(s: string, i: number, count: number): number {
  let n = 0;
  for (let k = 0; k < count; k++) {
    const d = digitAt(s, i + k);
    if (d < 0) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Microseconds of an ISO 8601 / RFC 3339 text: `YYYY-MM-DD`, then optionally `T` or a space and
 * `hh:mm[:ss[.fraction]]`, then optionally `Z`, `±hh:mm`, `±hhmm` or `±hh`. No zone means UTC.
 * NaN when the text is not such a time (or a field is out of range).
 */
export function parseIsoMicros(s: string): number {
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return NaN;
  let micros = daysFromCivil(year, month, day) * MICROS_PER_DAY;
  let i = 10;
  if (i === n) return micros;
  const sep = s.charCodeAt(i);
  if (sep !== 84 && sep !== 116 && sep !== 32) return NaN; // T t space
  const hour = digits(s, i + 1, 2);
  const minute = digits(s, i + 4, 2);
  if (hour < 0 || hour > 23 || s.charCodeAt(i + 3) !== 58 || minute < 0 || minute > 59) return NaN;
  micros += (hour * 3600 + minute * 60) * MICROS_PER_SECOND;
  i += 6;
  if (s.charCodeAt(i) === 58) {
    const second = digits(s, i + 1, 2);
    if (second < 0 || second > 60) return NaN;
    micros += second * MICROS_PER_SECOND;
    i += 3;
    const dot = s.charCodeAt(i);
    if (dot === 46 || dot === 44) {
      i++;
      let scale = 100000;
      let frac = 0;
      const start = i;
      for (; digitAt(s, i) >= 0; i++) {
        frac += digitAt(s, i) * scale;
        scale /= 10;
      }
      if (i === start) return NaN;
      micros += Math.floor(frac);
    }
  }
  if (i === n) return micros;
  const z = s.charCodeAt(i);
  if ((z === 90 || z === 122) && i + 1 === n) return micros; // Z z
  if (z !== 43 && z !== 45) return NaN;
  const oh = digits(s, i + 1, 2);
  if (oh < 0 || oh > 23) return NaN;
  let om = 0;
  i += 3;
  if (i < n) {
    if (s.charCodeAt(i) === 58) i++;
    om = digits(s, i, 2);
    if (om < 0 || om > 59 || i + 2 !== n) return NaN;
  }
  const offset = (oh * 60 + om) * 60 * MICROS_PER_SECOND;
  return z === 43 ? micros - offset : micros + offset;
}
