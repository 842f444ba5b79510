// strptime formats, compiled once into a list of operations and run with charCodeAt (no regex, no
// allocation per row).
//
// The directives of strftime.ts are read back: numbers take up to their width in digits (%Y 1-4, %m %d
// %H %M %S 1-2, %j 1-3, %y exactly 2: 69-99 is 19xx, else 20xx); %e also takes a leading space; names
// (%a %A %b %B %h %p) are case-insensitive, full or 3-letter; %z is Z, ±hh, ±hhmm or ±hh:mm; %Z is
// UTC, GMT or Z (other zone names do not match: their offsets are ambiguous); %s is epoch seconds,
// optionally negative and fractional; %N %L %f %1N..%9N take up to 9, 3, 6 or n fraction digits.
// Whitespace in the format matches any run of whitespace (also none); other characters match
// exactly. The whole text must be used (trailing whitespace aside). A missing year is the year of
// now(); a missing month or day is 1; times are UTC unless %z/%Z says otherwise.

import { daysFromCivil, daysInMonth, MAX_MICROS, MICROS_PER_DAY, MICROS_PER_SECOND } from './calendar';
import { DAY_NAMES, MONTH_NAMES } from './strftime';

const enum P {
  LITERAL, SPACE, YEAR, YEAR2, MONTH, DAY, DAY_SPACE, HOUR, HOUR12, MINUTE, SECOND, YDAY, DAY_NAME,
  MONTH_NAME, AMPM, ZONE_OFFSET, ZONE_NAME, EPOCH, FRACTION,
}

export interface CompiledStrptime {
  ops: P[];
  /** LITERAL: the character code; FRACTION: the most digits. */
  args: number[];
}

const EXPANSIONS: Record<string, string> = { F: '%Y-%m-%d', T: '%H:%M:%S', D: '%m/%d/%y', R: '%H:%M' };
const SIMPLE: Record<string, P> = {
  Y: P.YEAR, y: P.YEAR2, m: P.MONTH, d: P.DAY, e: P.DAY_SPACE, H: P.HOUR, I: P.HOUR12, M: P.MINUTE,
  S: P.SECOND, j: P.YDAY, a: P.DAY_NAME, A: P.DAY_NAME, b: P.MONTH_NAME, B: P.MONTH_NAME, h: P.MONTH_NAME,
  p: P.AMPM, z: P.ZONE_OFFSET, Z: P.ZONE_NAME, s: P.EPOCH,
};

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

export function compileStrptime(format: string): CompiledStrptime {
  const out: CompiledStrptime = { ops: [], args: [] };
  const push = (op: P, arg = 0): void => {
    out.ops.push(op);
    out.args.push(arg);
  };
  const f = format.replace(/%([FTDR%])/g, (m, c: string) => (c === '%' ? m : EXPANSIONS[c]!));
  for (let i = 0; i < f.length; i++) {
    const c = f.charCodeAt(i);
    if (isSpace(c)) {
      while (isSpace(f.charCodeAt(i + 1))) i++;
      push(P.SPACE);
      continue;
    }
    if (c !== 37 || i + 1 >= f.length) {
      push(P.LITERAL, c);
      continue;
    }
    const d = f[++i]!;
    const op = SIMPLE[d];
    if (op !== undefined) push(op);
    else if (d === '%') push(P.LITERAL, 37);
    else if (d === 'n' || d === 't') push(P.SPACE);
    else if (d === 'N') push(P.FRACTION, 9);
    else if (d === 'L') push(P.FRACTION, 3);
    else if (d === 'f') push(P.FRACTION, 6);
    else if (d >= '1' && d <= '9' && f[i + 1] === 'N') {
      push(P.FRACTION, Number(d));
      i++;
    } else {
      push(P.LITERAL, 37);
      push(P.LITERAL, d.charCodeAt(0));
    }
  }
  return out;
}

// The parse state of one call: module-level so that a call allocates nothing.
let pos = 0;

/** Reads 1..max digits at pos (exactly `max` when exact); -1 when there is none. */
function readNumber(s: string, max: number, exact: boolean): number {
  let n = 0;
  let k = 0;
  for (; k < max; k++) {
    const d = s.charCodeAt(pos + k) - 48;
    if (!(d >= 0 && d <= 9)) break;
    n = n * 10 + d;
  }
  if (k === 0 || (exact && k < max)) return -1;
  pos += k;
  return n;
}

/** Index of the name (full or 3-letter, case-insensitive) at pos in names, advancing pos; -1 if none. */
function readName(s: string, names: readonly string[]): number {
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (matchesFold(s, pos, name, name.length)) {
      pos += name.length;
      return i;
    }
  }
  for (let i = 0; i < names.length; i++) {
    if (matchesFold(s, pos, names[i]!, 3)) {
      pos += 3;
      return i;
    }
  }
  return -1;
}

function matchesFold(s: string, at: number, name: string, len: number): boolean {
  for (let k = 0; k < len; k++) {
    if ((s.charCodeAt(at + k) | 32) !== (name.charCodeAt(k) | 32)) return false;
  }
  return true;
}

/** Microseconds of s read with the format, or null when it does not match. */
export function runStrptime(f: CompiledStrptime, s: string, defaultYear: number): number | null {
  pos = 0;
  let year = defaultYear;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let frac = 0;
  let yday = -1;
  let pm = -1; // -1 none, 0 AM, 1 PM
  let hour12 = false;
  let offsetMinutes = 0;
  let epoch = NaN;
  const { ops, args } = f;
  for (let i = 0; i < ops.length; i++) {
    let v = 0;
    switch (ops[i]!) {
      case P.LITERAL:
        if (s.charCodeAt(pos) !== args[i]) return null;
        pos++;
        continue;
      case P.SPACE:
        while (isSpace(s.charCodeAt(pos))) pos++;
        continue;
      case P.YEAR: v = year = readNumber(s, 4, false); break;
      case P.YEAR2:
        v = readNumber(s, 2, true);
        year = v >= 69 ? 1900 + v : 2000 + v;
        break;
      case P.MONTH: v = month = readNumber(s, 2, false); break;
      case P.DAY_SPACE:
        if (s.charCodeAt(pos) === 32) pos++;
        v = day = readNumber(s, 2, false);
        break;
      case P.DAY: v = day = readNumber(s, 2, false); break;
      case P.HOUR: v = hour = readNumber(s, 2, false); break;
      case P.HOUR12:
        v = hour = readNumber(s, 2, false);
        hour12 = true;
        break;
      case P.MINUTE: v = minute = readNumber(s, 2, false); break;
      case P.SECOND: v = second = readNumber(s, 2, false); break;
      case P.YDAY: v = yday = readNumber(s, 3, false); break;
      case P.DAY_NAME: v = readName(s, DAY_NAMES); break;
      case P.MONTH_NAME:
        v = readName(s, MONTH_NAMES);
        month = v + 1;
        break;
      case P.AMPM: {
        const a = s.charCodeAt(pos) | 32;
        if ((a !== 97 && a !== 112) || (s.charCodeAt(pos + 1) | 32) !== 109) return null; // am pm
        pm = a === 112 ? 1 : 0;
        pos += 2;
        continue;
      }
      case P.ZONE_OFFSET: {
        const c = s.charCodeAt(pos);
        if (c === 90 || c === 122) { // Z
          pos++;
          continue;
        }
        if (c !== 43 && c !== 45) return null;
        pos++;
        const oh = readNumber(s, 2, true);
        if (oh < 0 || oh > 23) return null;
        if (s.charCodeAt(pos) === 58) pos++;
        const at = pos;
        let om = readNumber(s, 2, true);
        if (om < 0) {
          if (pos !== at || s.charCodeAt(at - 1) === 58) return null;
          om = 0;
        } else if (om > 59) return null;
        offsetMinutes = (c === 43 ? 1 : -1) * (oh * 60 + om);
        continue;
      }
      case P.ZONE_NAME:
        if (matchesFold(s, pos, 'UTC', 3) || matchesFold(s, pos, 'GMT', 3)) pos += 3;
        else if ((s.charCodeAt(pos) | 32) === 122) pos++;
        else return null;
        continue;
      case P.EPOCH: {
        const start = pos;
        if (s.charCodeAt(pos) === 45) pos++;
        while (s.charCodeAt(pos) >= 48 && s.charCodeAt(pos) <= 57) pos++;
        if (s.charCodeAt(pos) === 46) {
          pos++;
          while (s.charCodeAt(pos) >= 48 && s.charCodeAt(pos) <= 57) pos++;
        }
        epoch = Number(s.slice(start, pos));
        if (!Number.isFinite(epoch) || pos === start) return null;
        continue;
      }
      case P.FRACTION: {
        const max = args[i]!;
        let scale = 100000;
        let k = 0;
        frac = 0;
        for (; k < max; k++) {
          const d = s.charCodeAt(pos + k) - 48;
          if (!(d >= 0 && d <= 9)) break;
          frac += d * scale;
          scale /= 10;
        }
        if (k === 0) return null;
        pos += k;
        frac = Math.floor(frac);
        continue;
      }
    }
    if (v < 0) return null;
  }
  while (isSpace(s.charCodeAt(pos))) pos++;
  if (pos !== s.length) return null;
  if (!Number.isNaN(epoch)) return Math.round(epoch * MICROS_PER_SECOND);
  if (hour12) {
    if (hour < 1 || hour > 12) return null;
    if (hour === 12) hour = 0;
  }
  if (pm === 1) {
    if (hour > 11) return null;
    hour += 12;
  }
  if (hour > 23 || minute > 59 || second > 60) return null;
  let days: number;
  if (yday >= 0) {
    if (yday < 1 || yday > (daysInMonth(year, 2) === 29 ? 366 : 365)) return null;
    days = daysFromCivil(year, 1, 1) + yday - 1;
  } else {
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
    days = daysFromCivil(year, month, day);
  }
  const micros = days * MICROS_PER_DAY + (hour * 3600 + minute * 60 + second - offsetMinutes * 60) * MICROS_PER_SECOND + frac;
  return Math.abs(micros) <= MAX_MICROS ? micros : null;
}
