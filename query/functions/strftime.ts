// strftime formats, compiled once into a list of operations. UTC only. The directives are in
// time-directives.ts; fractions of the second are truncated, and any other `%x` is copied as it is.

import { breakDown, parts } from './calendar';
import { DAY_NAMES, Directive, directiveAt, expandComposites, MONTH_NAMES } from './time-directives';

const DAY_ABBR = DAY_NAMES.map((d) => d.slice(0, 3));
const MONTH_ABBR = MONTH_NAMES.map((m) => m.slice(0, 3));

/** The operation that copies text: it takes the text from `texts`; a FRACTION its digit count from `widths`. */
const LITERAL = -1;
type Op = Directive | typeof LITERAL;

export interface CompiledStrftime {
  ops: Op[];
  texts: string[];
  widths: number[];
}

export function compileStrftime(format: string): CompiledStrftime {
  const out: CompiledStrftime = { ops: [], texts: [], widths: [] };
  let literal = '';
  const push = (op: Op, width = 0): void => {
    if (literal !== '') {
      out.ops.push(LITERAL);
      out.texts.push(literal);
      out.widths.push(0);
      literal = '';
    }
    out.ops.push(op);
    out.texts.push('');
    out.widths.push(width);
  };
  const expanded = expandComposites(format);
  for (let i = 0; i < expanded.length; i++) {
    const c = expanded[i]!;
    if (c !== '%' || i + 1 >= expanded.length) {
      literal += c;
      continue;
    }
    const found = directiveAt(expanded, i + 1);
    if (found === null) {
      literal += `%${expanded[++i]}`;
      continue;
    }
    i += found.length;
    if (found.directive === Directive.PERCENT) literal += '%';
    else if (found.directive === Directive.NEWLINE) literal += '\n';
    else if (found.directive === Directive.TAB) literal += '\t';
    else push(found.directive, found.digits);
  }
  if (literal !== '') {
    out.ops.push(LITERAL);
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
      case LITERAL:
        out += texts[i]!;
        break;
      case Directive.YEAR:
        out += parts.year >= 0 ? pad(parts.year, 4) : `-${pad(-parts.year, 4)}`;
        break;
      case Directive.YEAR2:
        out += pad2(((parts.year % 100) + 100) % 100);
        break;
      case Directive.MONTH:
        out += pad2(parts.month);
        break;
      case Directive.DAY:
        out += pad2(parts.day);
        break;
      case Directive.DAY_SPACE:
        out += parts.day < 10 ? ` ${parts.day}` : String(parts.day);
        break;
      case Directive.HOUR:
        out += pad2(parts.hour);
        break;
      case Directive.HOUR12:
        out += pad2(parts.hour % 12 === 0 ? 12 : parts.hour % 12);
        break;
      case Directive.AMPM:
        out += parts.hour < 12 ? 'AM' : 'PM';
        break;
      case Directive.MINUTE:
        out += pad2(parts.minute);
        break;
      case Directive.SECOND:
        out += pad2(parts.second);
        break;
      case Directive.YDAY:
        out += pad(parts.yday, 3);
        break;
      case Directive.DAY_ABBR:
        out += DAY_ABBR[parts.wday]!;
        break;
      case Directive.DAY_NAME:
        out += DAY_NAMES[parts.wday]!;
        break;
      case Directive.MONTH_ABBR:
        out += MONTH_ABBR[parts.month - 1]!;
        break;
      case Directive.MONTH_NAME:
        out += MONTH_NAMES[parts.month - 1]!;
        break;
      case Directive.WDAY_ISO:
        out += String(parts.wday === 0 ? 7 : parts.wday);
        break;
      case Directive.WDAY:
        out += String(parts.wday);
        break;
      case Directive.ZONE_OFFSET:
        out += '+0000';
        break;
      case Directive.ZONE_NAME:
        out += 'UTC';
        break;
      case Directive.EPOCH:
        out += String(parts.epochSeconds);
        break;
      case Directive.FRACTION: {
        const w = widths[i]!;
        const six = pad(parts.micros, 6);
        out += w <= 6 ? six.slice(0, w) : six + '0'.repeat(w - 6);
        break;
      }
    }
  }
  return out;
}
