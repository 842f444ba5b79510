// The `%` directives of time formats, one table for strftime.ts (formatting) and strptime.ts
// (reading back), so that both understand a format alike.
//
// Directives: %Y year, %y 2-digit year, %m month 01-12, %d day 01-31, %e day space-padded, %H 00-23,
// %I 01-12, %p AM/PM, %M minute, %S second, %j day of year 001-366, %a/%A weekday name (Sun/Sunday),
// %b/%h/%B month name (Jan/January), %u weekday 1-7 (Monday 1), %w weekday 0-6 (Sunday 0), %z +0000,
// %Z UTC, %s epoch seconds, %F = %Y-%m-%d, %T = %H:%M:%S, %D = %m/%d/%y, %R = %H:%M, %n newline,
// %t tab, %% percent, and fractions of the second: %1N..%9N (that many digits), %N (9), %L (3,
// milliseconds), %f (6, microseconds). Any other `%x` is text.

/** What a directive stands for. */
export const enum Directive {
  YEAR,
  YEAR2,
  MONTH,
  DAY,
  DAY_SPACE,
  HOUR,
  HOUR12,
  AMPM,
  MINUTE,
  SECOND,
  YDAY,
  DAY_ABBR,
  DAY_NAME,
  MONTH_ABBR,
  MONTH_NAME,
  WDAY_ISO,
  WDAY,
  ZONE_OFFSET,
  ZONE_NAME,
  EPOCH,
  FRACTION,
  PERCENT,
  NEWLINE,
  TAB,
}

export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Composite directives, replaced by what they stand for before a format is compiled. */
const EXPANSIONS: Record<string, string> = { F: '%Y-%m-%d', T: '%H:%M:%S', D: '%m/%d/%y', R: '%H:%M' };

/** The directives of one letter (fractions of the second are read by directiveAt). */
const LETTERS: Record<string, Directive> = {
  Y: Directive.YEAR,
  y: Directive.YEAR2,
  m: Directive.MONTH,
  d: Directive.DAY,
  e: Directive.DAY_SPACE,
  H: Directive.HOUR,
  I: Directive.HOUR12,
  p: Directive.AMPM,
  M: Directive.MINUTE,
  S: Directive.SECOND,
  j: Directive.YDAY,
  a: Directive.DAY_ABBR,
  A: Directive.DAY_NAME,
  b: Directive.MONTH_ABBR,
  h: Directive.MONTH_ABBR,
  B: Directive.MONTH_NAME,
  u: Directive.WDAY_ISO,
  w: Directive.WDAY,
  z: Directive.ZONE_OFFSET,
  Z: Directive.ZONE_NAME,
  s: Directive.EPOCH,
  '%': Directive.PERCENT,
  n: Directive.NEWLINE,
  t: Directive.TAB,
};

/** The format with its composite directives (%F %T %D %R) written out; `%%` stays as it is. */
export function expandComposites(format: string): string {
  return format.replace(/%([FTDR%])/g, (m, c: string) => (c === '%' ? m : EXPANSIONS[c]!));
}

/** A directive read from a format: `digits` of a fraction (else 0), and the characters it took after the `%`. */
export interface FoundDirective {
  directive: Directive;
  digits: number;
  length: number;
}

/** The directive whose letters start at `at` (just after a `%`), or null when they name none. */
export function directiveAt(format: string, at: number): FoundDirective | null {
  const d = format[at]!;
  const directive = LETTERS[d];
  if (directive !== undefined) return { directive, digits: 0, length: 1 };
  if (d === 'N') return { directive: Directive.FRACTION, digits: 9, length: 1 };
  if (d === 'L') return { directive: Directive.FRACTION, digits: 3, length: 1 };
  if (d === 'f') return { directive: Directive.FRACTION, digits: 6, length: 1 };
  if (d >= '1' && d <= '9' && format[at + 1] === 'N') return { directive: Directive.FRACTION, digits: Number(d), length: 2 };
  return null;
}
