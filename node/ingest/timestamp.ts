/**
 * Timestamp detection at the start of a text line (raw ingest and event-collector string events).
 *
 * Hand-written char-code scanners instead of regexes: the first character picks a small set of candidate
 * formats, so a typical line costs a few dozen char reads. Times without a zone are UTC; formats without a
 * year get the latest year that is not more than a day after the receive time.
 *
 * At the line start (optionally after `<PRI>`, see pipeline.ts):
 *   ISO 8601 / RFC 3339   2003-10-11T22:14:15.003Z, 2015-10-18 18:01:47,978, 2016-09-28 04:30:30, 2009/11/10 23:00:00
 *   epoch                 1117838570 (10 digits, optional .fraction), 13 ms, 16 us, 19 ns digits
 *   RFC 3164 syslog       Oct 11 22:14:15, Jul  1 09:00:55, Nov 9 12:01:01 (year inferred)
 *   ctime / Apache error  Sun Dec 04 04:47:44 2005, [Sun Dec 04 04:47:44.123456 2005]
 *   RFC 2822 / HTTP date  Sun, 06 Nov 1994 08:49:37 GMT (numeric zone or GMT/UTC/UT/Z; other names read as UTC)
 *   Apache/nginx access   [10/Oct/2000:13:55:36 -0700], also after `ip ident user ` (common/combined log)
 *   bracketed ISO         [2024-01-02 03:04:05,678]
 *   HDFS                  081109 203615 (yyMMdd HHmmss)
 *   Spark / log4j         17/06/09 20:10:40 (yy/MM/dd HH:mm:ss)
 *   Android logcat        03-17 16:13:38.811 (MM-dd, year inferred)
 *   HealthApp             20171223-22:15:29:606, 20171223-22:16:0:119 (yyyyMMdd-H:m:s:millis)
 *   Proxifier             [10.30 16:49:06] (MM.dd, year inferred)
 * After one leading token (see detectAfterFirstToken): an ISO date-time (OpenStack's file-name prefix), or
 * an epoch when the token is `-` or an upper-case word (BGL, Thunderbird).
 * Not supported: day-first or month-first numeric dates (03/17/2024: ambiguous), epochs deeper in the
 * line (HPC's fifth column), named zones other than UTC/GMT.
 */
import {
  civilMicros,
  digitRun,
  inferYearMicros,
  isAlnumCode,
  isAlphaCode,
  isDigitCode,
  isValidEventMicros,
  isWeekdayAt,
  monthAt,
  readDigits,
  readFraction,
  readHms,
  readZone,
  MICROS_PER_DAY,
  MICROS_PER_SECOND,
} from './datetime';

export const TS_ISO = 1;
export const TS_EPOCH = 2;
/** RFC 3164 `Mmm dd HH:MM:SS`: a host and tag may follow. */
export const TS_SYSLOG = 3;
/** Android logcat: a level letter follows after pid and tid. */
export const TS_LOGCAT = 4;
export const TS_OTHER = 5;

export interface TsMatch {
  micros: number;
  /** Index just past the timestamp text. */
  end: number;
  kind: number;
}

function match(micros: number, end: number, kind: number): TsMatch | null {
  return Number.isNaN(micros) ? null : { micros, end, kind };
}

/** A timestamp starting exactly at s[i], or null. */
export function detectLeadingTimestamp(s: string, i: number, nowMicros: number): TsMatch | null {
  const c = s.charCodeAt(i);
  if (isDigitCode(c)) return digitStart(s, i, nowMicros);
  if (c === 91) return bracketStart(s, i, nowMicros);
  if (isAlphaCode(c)) return letterStart(s, i, nowMicros);
  return null;
}

/**
 * ISO 8601 date-time at s[i]: date with `-` (or `/`), `T`/space, HH:MM[:SS][.,fraction][zone]. The zone may
 * follow one space when it is `+HHMM`/`+HH:MM`. With dateOnlyOk a bare date is midnight UTC.
 */
export function parseIsoAt(s: string, i: number, dateOnlyOk: boolean): TsMatch | null {
  const y = readDigits(s, i, 4);
  const sep = s.charCodeAt(i + 4);
  if (y < 0 || (sep !== 45 && sep !== 47)) return null;
  const mo = readDigits(s, i + 5, 2);
  if (mo < 0 || s.charCodeAt(i + 7) !== sep) return null;
  const d = readDigits(s, i + 8, 2);
  if (d < 0) return null;
  let j = i + 10;
  const t = s.charCodeAt(j);
  const h = t === 84 || t === 116 || t === 32 ? readDigits(s, j + 1, 2) : -1;
  if (h < 0 || s.charCodeAt(j + 3) !== 58) {
    if (!dateOnlyOk || isAlnumCode(t)) return null;
    return match(civilMicros(y, mo, d, 0, 0, 0, 0, 0), j, TS_ISO);
  }
  const mi = readDigits(s, j + 4, 2);
  if (mi < 0) return null;
  j += 6;
  let sec = 0;
  if (s.charCodeAt(j) === 58) {
    sec = readDigits(s, j + 1, 2);
    if (sec < 0) return null;
    j += 3;
  }
  let frac = 0;
  const fc = s.charCodeAt(j);
  if ((fc === 46 || fc === 44) && isDigitCode(s.charCodeAt(j + 1))) {
    const f = readFraction(s, j + 1)!;
    frac = f.micros;
    j = f.end;
  }
  let offset = 0;
  const z = readZone(s, j);
  if (z) {
    offset = z.minutes;
    j = z.end;
  } else if (s.charCodeAt(j) === 32) {
    const z2 = readZone(s, j + 1);
    if (z2 && z2.end - j >= 6) {
      offset = z2.minutes;
      j = z2.end;
    }
  }
  if (isDigitCode(s.charCodeAt(j))) return null;
  return match(civilMicros(y, mo, d, h, mi, sec, frac, offset), j, TS_ISO);
}

/** 10/13/16/19 digits (s, ms, us, ns) followed by a non-alphanumeric; 10 digits may carry a fraction. */
export function parseEpochAt(s: string, i: number, n: number): TsMatch | null {
  if (s.charCodeAt(i) === 48) return null; // leading zero: a counter, not a time
  let j = i + n;
  let micros: number;
  if (n === 10) {
    micros = readDigits(s, i, 10) * MICROS_PER_SECOND;
    if (s.charCodeAt(j) === 46 && isDigitCode(s.charCodeAt(j + 1))) {
      const f = readFraction(s, j + 1)!;
      micros += f.micros;
      j = f.end;
    }
  } else if (n === 13) micros = readDigits(s, i, 13) * 1000;
  else if (n === 16) micros = readDigits(s, i, 16);
  else if (n === 19) micros = readDigits(s, i, 16) + (s.charCodeAt(i + 16) >= 53 ? 1 : 0);
  else return null;
  if (isAlnumCode(s.charCodeAt(j)) || !isValidEventMicros(micros)) return null;
  return { micros, end: j, kind: TS_EPOCH };
}

function digitStart(s: string, i: number, now: number): TsMatch | null {
  const n = digitRun(s, i, 20);
  const next = s.charCodeAt(i + n);
  switch (n) {
    case 4:
      return next === 45 || next === 47 ? parseIsoAt(s, i, false) : null;
    case 2:
      if (next === 45) return logcat(s, i, now);
      return next === 47 ? log4jShort(s, i, now) : null;
    case 6:
      return next === 32 ? hdfs(s, i, now) : null;
    case 8:
      return next === 45 ? healthApp(s, i) : null;
    case 10:
    case 13:
    case 16:
    case 19:
      return parseEpochAt(s, i, n);
    default:
      return null;
  }
}

/** Optional `.fraction` at j: [micros, end]. */
function optFraction(s: string, j: number, sepA: number, sepB = sepA): [number, number] {
  const c = s.charCodeAt(j);
  if ((c === sepA || c === sepB) && isDigitCode(s.charCodeAt(j + 1))) {
    const f = readFraction(s, j + 1)!;
    return [f.micros, f.end];
  }
  return [0, j];
}

function fromSecondsOfDay(y: number, mo: number, d: number, sod: number, frac: number, offset: number): number {
  return civilMicros(y, mo, d, Math.floor(sod / 3600), Math.floor(sod / 60) % 60, sod % 60, frac, offset);
}

function inferFromSecondsOfDay(mo: number, d: number, sod: number, frac: number, now: number): number {
  return inferYearMicros(mo, d, Math.floor(sod / 3600), Math.floor(sod / 60) % 60, sod % 60, frac, now);
}

/** Two-digit year: 20yy unless that lies in the future, then 19yy. */
function century(yy: number, mo: number, d: number, now: number): number {
  const y = 2000 + yy;
  return civilMicros(y, mo, d, 0, 0, 0, 0, 0) > now + MICROS_PER_DAY ? y - 100 : y;
}

/** Android logcat `MM-dd HH:mm:ss.SSS`. */
function logcat(s: string, i: number, now: number): TsMatch | null {
  const mo = readDigits(s, i, 2);
  const d = readDigits(s, i + 3, 2);
  if (d < 0 || s.charCodeAt(i + 5) !== 32) return null;
  const sod = readHms(s, i + 6);
  if (sod < 0) return null;
  const [frac, end] = optFraction(s, i + 14, 46);
  return match(inferFromSecondsOfDay(mo, d, sod, frac, now), end, TS_LOGCAT);
}

/** log4j `yy/MM/dd HH:mm:ss` (Spark's default). */
function log4jShort(s: string, i: number, now: number): TsMatch | null {
  const yy = readDigits(s, i, 2);
  const mo = readDigits(s, i + 3, 2);
  const d = readDigits(s, i + 6, 2);
  if (mo < 0 || s.charCodeAt(i + 5) !== 47 || d < 0 || s.charCodeAt(i + 8) !== 32) return null;
  const sod = readHms(s, i + 9);
  if (sod < 0) return null;
  const [frac, end] = optFraction(s, i + 17, 46, 44);
  return match(fromSecondsOfDay(century(yy, mo, d, now), mo, d, sod, frac, 0), end, TS_OTHER);
}

/** HDFS `yyMMdd HHmmss`. */
function hdfs(s: string, i: number, now: number): TsMatch | null {
  if (digitRun(s, i + 7, 7) !== 6) return null;
  const yy = readDigits(s, i, 2);
  const mo = readDigits(s, i + 2, 2);
  const d = readDigits(s, i + 4, 2);
  const h = readDigits(s, i + 7, 2);
  const mi = readDigits(s, i + 9, 2);
  const sec = readDigits(s, i + 11, 2);
  if (h > 23 || mi > 59) return null;
  return match(civilMicros(century(yy, mo, d, now), mo, d, h, mi, sec, 0, 0), i + 13, TS_OTHER);
}

/** Digits at j (1..max of them): [value, end], or null. */
function shortNumber(s: string, j: number, max: number): [number, number] | null {
  const n = digitRun(s, j, max + 1);
  return n < 1 || n > max ? null : [readDigits(s, j, n), j + n];
}

/** HealthApp `yyyyMMdd-H:m:s:SSS`: the time parts are not zero-padded, the last is a count of millis. */
function healthApp(s: string, i: number): TsMatch | null {
  const y = readDigits(s, i, 4);
  const mo = readDigits(s, i + 4, 2);
  const d = readDigits(s, i + 6, 2);
  const h = shortNumber(s, i + 9, 2);
  if (h === null || s.charCodeAt(h[1]) !== 58) return null;
  const mi = shortNumber(s, h[1] + 1, 2);
  if (mi === null || s.charCodeAt(mi[1]) !== 58) return null;
  const sec = shortNumber(s, mi[1] + 1, 2);
  if (sec === null) return null;
  let end = sec[1];
  let millis = 0;
  if (s.charCodeAt(end) === 58) {
    const ms = shortNumber(s, end + 1, 3);
    if (ms === null) return null;
    millis = ms[0];
    end = ms[1];
  }
  if (mi[0] > 59 || isDigitCode(s.charCodeAt(end))) return null;
  return match(civilMicros(y, mo, d, h[0], mi[0], sec[0], millis * 1000, 0), end, TS_OTHER);
}

function bracketStart(s: string, i: number, now: number): TsMatch | null {
  const j = i + 1;
  let m: TsMatch | null = null;
  if (isDigitCode(s.charCodeAt(j))) {
    const n = digitRun(s, j, 5);
    const next = s.charCodeAt(j + n);
    if (n === 4) m = parseIsoAt(s, j, false);
    else if (n === 2 && next === 47) m = apacheAccess(s, j);
    else if (n === 2 && next === 46) m = proxifier(s, j, now);
  } else if (isWeekdayAt(s, j) && s.charCodeAt(j + 3) === 32) {
    m = ctime(s, j);
  }
  if (m && s.charCodeAt(m.end) === 93) m.end++;
  return m;
}

/** `dd/Mmm/yyyy:HH:mm:ss[ +zzzz]` (Apache and nginx access logs). */
function apacheAccess(s: string, i: number): TsMatch | null {
  const d = readDigits(s, i, 2);
  const mo = monthAt(s, i + 3);
  if (d < 0 || s.charCodeAt(i + 2) !== 47 || mo === 0 || s.charCodeAt(i + 6) !== 47) return null;
  const y = readDigits(s, i + 7, 4);
  if (y < 0 || s.charCodeAt(i + 11) !== 58) return null;
  const sod = readHms(s, i + 12);
  if (sod < 0) return null;
  let [frac, end] = optFraction(s, i + 20, 46);
  let offset = 0;
  if (s.charCodeAt(end) === 32) {
    const z = readZone(s, end + 1);
    if (z) {
      offset = z.minutes;
      end = z.end;
    }
  }
  return match(fromSecondsOfDay(y, mo, d, sod, frac, offset), end, TS_OTHER);
}

/** Proxifier `MM.dd HH:mm:ss` (inside brackets). */
function proxifier(s: string, i: number, now: number): TsMatch | null {
  const mo = readDigits(s, i, 2);
  const d = readDigits(s, i + 3, 2);
  if (d < 0 || s.charCodeAt(i + 5) !== 32 || s.charCodeAt(i + 14) !== 93) return null;
  const sod = readHms(s, i + 6);
  if (sod < 0) return null;
  return match(inferFromSecondsOfDay(mo, d, sod, 0, now), i + 14, TS_OTHER);
}

/** Day of month at j, zero- or space-padded or bare: [day, end] or null. */
function dayAt(s: string, j: number): [number, number] | null {
  if (s.charCodeAt(j) === 32) j++;
  const n = digitRun(s, j, 3);
  if (n < 1 || n > 2) return null;
  return [readDigits(s, j, n), j + n];
}

/** ctime / Apache error log `Www Mmm dd HH:MM:SS[.ffffff] yyyy`. */
function ctime(s: string, i: number): TsMatch | null {
  const mo = monthAt(s, i + 4);
  if (mo === 0 || s.charCodeAt(i + 7) !== 32) return null;
  const day = dayAt(s, i + 8);
  if (!day || s.charCodeAt(day[1]) !== 32) return null;
  const sod = readHms(s, day[1] + 1);
  if (sod < 0) return null;
  const [frac, end] = optFraction(s, day[1] + 9, 46);
  const y = s.charCodeAt(end) === 32 ? readDigits(s, end + 1, 4) : -1;
  if (y < 0 || isDigitCode(s.charCodeAt(end + 5))) return null;
  return match(fromSecondsOfDay(y, mo, day[0], sod, frac, 0), end + 5, TS_OTHER);
}

function letterStart(s: string, i: number, now: number): TsMatch | null {
  const c3 = s.charCodeAt(i + 3);
  if (c3 === 32) {
    const mo = monthAt(s, i);
    if (mo !== 0) return syslog3164(s, i, mo, now);
    return isWeekdayAt(s, i) ? ctime(s, i) : null;
  }
  if (c3 === 44 && s.charCodeAt(i + 4) === 32 && isWeekdayAt(s, i)) return rfc2822(s, i + 5);
  return null;
}

/** RFC 3164 `Mmm dd HH:MM:SS[.fraction]`; the year comes from the receive time. */
function syslog3164(s: string, i: number, mo: number, now: number): TsMatch | null {
  const day = dayAt(s, i + 4);
  if (!day || s.charCodeAt(day[1]) !== 32) return null;
  const sod = readHms(s, day[1] + 1);
  if (sod < 0) return null;
  const [frac, end] = optFraction(s, day[1] + 9, 46);
  if (isDigitCode(s.charCodeAt(end))) return null;
  return match(inferFromSecondsOfDay(mo, day[0], sod, frac, now), end, TS_SYSLOG);
}

/** RFC 2822 `dd Mmm yyyy HH:MM:SS [zone]` (after `Www, `). */
function rfc2822(s: string, i: number): TsMatch | null {
  const day = dayAt(s, i);
  if (!day || s.charCodeAt(day[1]) !== 32) return null;
  let j = day[1] + 1;
  const mo = monthAt(s, j);
  if (mo === 0 || s.charCodeAt(j + 3) !== 32) return null;
  const y = readDigits(s, j + 4, 4);
  if (y < 0 || s.charCodeAt(j + 8) !== 32) return null;
  const sod = readHms(s, j + 9);
  if (sod < 0) return null;
  j += 17;
  let offset = 0;
  if (s.charCodeAt(j) === 32) {
    const z = readZone(s, j + 1);
    if (z) {
      offset = z.minutes;
      j = z.end;
    } else if (isAlphaCode(s.charCodeAt(j + 1))) {
      let k = j + 1;
      while (k < j + 6 && isAlphaCode(s.charCodeAt(k))) k++;
      j = k; // GMT, UTC, UT or a zone name we read as UTC
    }
  }
  return match(fromSecondsOfDay(y, mo, day[0], sod, 0, offset), j, TS_OTHER);
}

/** Common/combined access log: `host ident user [dd/Mmm/yyyy:HH:MM:SS zone]` at s[i]. */
export function detectCommonLog(s: string, i: number): TsMatch | null {
  let j = i;
  for (let t = 0; t < 3; t++) {
    const sp = s.indexOf(' ', j);
    if (sp <= j || sp - j > 256) return null;
    j = sp + 1;
  }
  if (s.charCodeAt(j) !== 91) return null;
  const m = apacheAccess(s, j + 1);
  if (m && s.charCodeAt(m.end) === 93) m.end++;
  return m;
}

/**
 * A timestamp as the second token: ISO date-time after any token of up to 64 chars (OpenStack's
 * `nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008`), or an epoch after `-` or an upper-case
 * word (BGL `- 1117838570`, `APPREAD 1117869872`). Other words before a number are too likely to be
 * counters or ids.
 */
export function detectAfterFirstToken(s: string, i: number): TsMatch | null {
  let j = i;
  const limit = Math.min(s.length, i + 65);
  let upper = true;
  while (j < limit) {
    const c = s.charCodeAt(j);
    if (c === 32) break;
    if (!((c >= 65 && c <= 90) || c === 95 || (j > i && isDigitCode(c)))) upper = false;
    j++;
  }
  if (j === i || s.charCodeAt(j) !== 32) return null;
  const k = j + 1;
  const n = digitRun(s, k, 20);
  if (n === 4) return parseIsoAt(s, k, false);
  if (n === 10 || n === 13) {
    const dash = j === i + 1 && s.charCodeAt(i) === 45;
    if (dash || upper) return parseEpochAt(s, k, n);
  }
  return null;
}
