// strftime formats, compiled once into a list of operations. UTC only.
//
// Directives: %Y year, %y 2-digit year, %m month 01-12, %d day 01-31, %e day space-padded, %H 00-23,
// %I 01-12, %p AM/PM, %M minute, %S second, %j day of year 001-366, %a/%A weekday name (Sun/Sunday),
// %b/%h/%B month name (Jan/January), %u weekday 1-7 (Monday 1), %w weekday 0-6 (Sunday 0), %z +0000,
// %Z UTC, %s epoch seconds, %F = %Y-%m-%d, %T = %H:%M:%S, %D = %m/%d/%y, %R = %H:%M, %n newline,
// %t tab, %% percent, and fractions of the second: %1N..%9N (that many digits, truncated), %N (9),
// %L (3, milliseconds), %f (6, microseconds). Any other `%x` is copied as it is.

import { breakDown, parts } from './calendar';

export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY_ABBR = DAY_NAMES.map((d) => d.slice(0, 3));
const MONTH_ABBR = MONTH_NAMES.map((m) => m.slice(0, 3));

/** Operation codes; LITERAL takes its text from `texts`, FRACTION its digit count from `widths`. */
const enum Op {
  LITERAL, YEAR, YEAR2, MONTH, DAY, DAY_SPACE, HOUR, HOUR12, AMPM, MINUTE, SECOND, YDAY, DAY_ABBR, DAY_NAME,
  MONTH_ABBR, MONTH_NAME, WDAY_ISO, WDAY, ZONE_OFFSET, ZONE_NAME, EPOCH, FRACTION,
}

export interface CompiledStrftime {
  ops: Op[];
  texts: string[];
  widths: number[];
}

const EXPANSIONS: Record<string, string> = { F: '%Y-%m-%d', T: '%H:%M:%S', D: '%m/%d/%y', R: '%H:%M' };
const SIMPLE: Record<string, Op> = {
  Y: Op.YEAR, y: Op.YEAR2, m: Op.MONTH, d: Op.DAY, e: Op.DAY_SPACE, H: Op.HOUR, I: Op.HOUR12, p: Op.AMPM,
  M: Op.MINUTE, S: Op.SECOND, j: Op.YDAY, a: Op.DAY_ABBR, A: Op.DAY_NAME, b: Op.MONTH_ABBR, h: Op.MONTH_ABBR,
  B: Op.MONTH_NAME, u: Op.WDAY_ISO, w: Op.WDAY, z: Op.ZONE_OFFSET, Z: Op.ZONE_NAME, s: Op.EPOCH,
};

export function compileStrftime(format: string): CompiledStrftime {
  const out: CompiledStrftime = { ops: [], texts: [], widths: [] };
  let literal = '';
  const push = (op: Op, width = 0): void => {
    if (literal !== '') {
      out.ops.push(Op.LITERAL);
      out.texts.push(literal);
      out.widths.push(0);
      literal = '';
    }
    out.ops.push(op);
    out.texts.push('');
    out.widths.push(width);
  };
  const expanded = format.replace(/%([FTDR%])/g, (m, c: string) => (c === '%' ? m : EXPANSIONS[c]!));
  for (let i = 0; i < expanded.length; i++) {
    const c = expanded[i]!;
    if (c !== '%' || i + 1 >= expanded.length) {
      literal += c;
      continue;
    }
    const d = expanded[++i]!;
    const op = SIMPLE[d];
    if (op !== undefined) push(op);
    else if (d === '%') literal += '%';
    else if (d === 'n') literal += '\n';
    else if (d === 't') literal += '\t';
    else if (d === 'N') push(Op.FRACTION, 9);
    else if (d === 'L') push(Op.FRACTION, 3);
    else if (d === 'f') push(Op.FRACTION, 6);
    else if (d >= '1' && d <= '9' && expanded[i + 1] === 'N') {
      push(Op.FRACTION, Number(d));
      i++;
    } else literal += `%${d}`;
  }
  if (literal !== '') {
    out.ops.push(Op.LITERAL);
    out.texts.push(literal);
    out.widths.push(0);
  }
  return out;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function pad(n: number, width: number): string {
  const s = String(n);
  return s.length >= width ? s : '0'.repeat(width - s.length) + s;
}

/** The formatted text of a time in microseconds. */
export function runStrftime(f: CompiledStrftime, micros: number): string {
  breakDown(micros);
  let out = '';
  const { ops, texts, widths } = f;
  for (let i = 0; i < ops.length; i++) {
    switch (ops[i]!) {
      case Op.LITERAL: out += texts[i]!; break;
      case Op.YEAR: out += parts.year >= 0 ? pad(parts.year, 4) : `-${pad(-parts.year, 4)}`; break;
      case Op.YEAR2: out += pad2(((parts.year % 100) + 100) % 100); break;
      case Op.MONTH: out += pad2(parts.month); break;
      case Op.DAY: out += pad2(parts.day); break;
      case Op.DAY_SPACE: out += parts.day < 10 ? ` ${parts.day}` : String(parts.day); break;
      case Op.HOUR: out += pad2(parts.hour); break;
      case Op.HOUR12: out += pad2(parts.hour % 12 === 0 ? 12 : parts.hour % 12); break;
      case Op.AMPM: out += parts.hour < 12 ? 'AM' : 'PM'; break;
      case Op.MINUTE: out += pad2(parts.minute); break;
      case Op.SECOND: out += pad2(parts.second); break;
      case Op.YDAY: out += pad(parts.yday, 3); break;
      case Op.DAY_ABBR: out += DAY_ABBR[parts.wday]!; break;
      case Op.DAY_NAME: out += DAY_NAMES[parts.wday]!; break;
      case Op.MONTH_ABBR: out += MONTH_ABBR[parts.month - 1]!; break;
      case Op.MONTH_NAME: out += MONTH_NAMES[parts.month - 1]!; break;
      case Op.WDAY_ISO: out += String(parts.wday === 0 ? 7 : parts.wday); break;
      case Op.WDAY: out += String(parts.wday); break;
      case Op.ZONE_OFFSET: out += '+0000'; break;
      case Op.ZONE_NAME: out += 'UTC'; break;
      case Op.EPOCH: out += String(parts.epochSeconds); break;
      case Op.FRACTION: {
        const w = widths[i]!;
        const six = pad(parts.micros, 6);
        out += w <= 6 ? six.slice(0, w) : six + '0'.repeat(w - 6);
        break;
      }
    }
  }
  return out;
}
