// strptime formats, compiled once into a list of operations and run with charCodeAt (no regex, no
// allocation per row).
//
// The directives of time-directives.ts are read back, but for the weekdays %u and %w, which match
// as text: numbers take up to their width in digits (%Y 1-4, %m %d %H %M %S 1-2, %j 1-3, %y
// exactly 2: 69-99 is 19xx, else 20xx); %e also takes a leading space; names (%a %A %b %B %h %p)
// are case-insensitive, full or 3-letter; %z is Z, ±hh, ±hhmm or ±hh:mm; %Z is UTC, GMT or Z
// (other zone names do not match: their offsets are ambiguous); %s is epoch seconds, optionally
// negative and fractional; %N %L %f %1N..%9N take up to 9, 3, 6 or n fraction digits.
// Whitespace in the format matches any run of whitespace (also none); other characters match
// exactly. The whole text must be used (trailing whitespace aside). A missing year is the year of
// now(); a missing month or day is 1; times are UTC unless %z/%Z says otherwise.

import { daysFromCivil, daysInMonth, MAX_MICROS, MICROS_PER_DAY, MICROS_PER_SECOND } from './calendar';
import { DAY_NAMES, Directive, directiveAt, expandComposites, MONTH_NAMES } from './time-directives';

/** The operations that are no directive: match one character (LITERAL), or any run of whitespace (SPACE). */
const LITERAL = -1;
const SPACE = -2;
type P = Directive | typeof LITERAL | typeof SPACE;

export interface CompiledStrptime {
  ops: P[];
  /** LITERAL: the character code; FRACTION: the most digits. */
  args: number[];
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

export function compileStrptime(format: string): CompiledStrptime {
  const out: CompiledStrptime = { ops: [], args: [] };
  const push = (op: P, arg = 0): void => {
    out.ops.push(op);
    out.args.push(arg);
  };
  const f = expandComposites(format);
  for (let i = 0; i < f.length; i++) {
    const c = f.charCodeAt(i);
    if (isSpace(c)) {
      while (isSpace(f.charCodeAt(i + 1))) i++;
      push(SPACE);
      continue;
    }
    if (c !== 37 || i + 1 >= f.length) {
      push(LITERAL, c);
      continue;
    }
    const found = directiveAt(f, i + 1);
    // No directive, or a weekday (a date does not need it): the text itself must be there.
    if (found === null || found.directive === Directive.WDAY_ISO || found.directive === Directive.WDAY) {
      push(LITERAL, 37);
      push(LITERAL, f.charCodeAt(++i));
      continue;
    }
    i += found.length;
    if (found.directive === Directive.PERCENT) push(LITERAL, 37);
    else if (found.directive === Directive.NEWLINE || found.directive === Directive.TAB) push(SPACE);
    else push(found.directive, found.digits);
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
      case LITERAL:
        if (s.charCodeAt(pos) !== args[i]) return null;
        pos++;
        continue;
      case SPACE:
        while (isSpace(s.charCodeAt(pos))) pos++;
        continue;
      case Directive.YEAR:
        v = year = readNumber(s, 4, false);
        break;
      case Directive.YEAR2:
        v = readNumber(s, 2, true);
        year = v >= 69 ? 1900 + v : 2000 + v;
        break;
      case Directive.MONTH:
        v = month = readNumber(s, 2, false);
        break;
      case Directive.DAY_SPACE:
        if (s.charCodeAt(pos) === 32) pos++;
        v = day = readNumber(s, 2, false);
        break;
      case Directive.DAY:
        v = day = readNumber(s, 2, false);
        break;
      case Directive.HOUR:
        v = hour = readNumber(s, 2, false);
        break;
      case Directive.HOUR12:
        v = hour = readNumber(s, 2, false);
        hour12 = true;
        break;
      case Directive.MINUTE:
        v = minute = readNumber(s, 2, false);
        break;
      case Directive.SECOND:
        v = second = readNumber(s, 2, false);
        break;
      case Directive.YDAY:
        v = yday = readNumber(s, 3, false);
        break;
      case Directive.DAY_ABBR:
      case Directive.DAY_NAME:
        v = readName(s, DAY_NAMES);
        break;
      case Directive.MONTH_ABBR:
      case Directive.MONTH_NAME:
        v = readName(s, MONTH_NAMES);
        month = v + 1;
        break;
      case Directive.AMPM: {
        const a = s.charCodeAt(pos) | 32;
        if ((a !== 97 && a !== 112) || (s.charCodeAt(pos + 1) | 32) !== 109) return null; // am pm
        pm = a === 112 ? 1 : 0;
        pos += 2;
        continue;
      }
      case Directive.ZONE_OFFSET: {
        const c = s.charCodeAt(pos);
        if (c === 90 || c === 122) {
          // Z
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
      case Directive.ZONE_NAME:
        if (matchesFold(s, pos, 'UTC', 3) || matchesFold(s, pos, 'GMT', 3)) pos += 3;
        else if ((s.charCodeAt(pos) | 32) === 122) pos++;
        else return null;
        continue;
      case Directive.EPOCH: {
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
      case Directive.FRACTION: {
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
