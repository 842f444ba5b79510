/**
 * Severity levels: the canonical lower-case names every ingest path stores in the `level` field, the
 * synonyms that map onto them, and detection of a severity word near the start of a text line.
 */
import { isAlnumCode, isAlphaCode } from './datetime';

export type Level = 'trace' | 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'critical' | 'fatal';

const SYNONYMS: Record<string, Level> = {
  trace: 'trace',
  verbose: 'trace',
  debug: 'debug',
  info: 'info',
  information: 'info',
  informational: 'info',
  notice: 'notice',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  err: 'error',
  severe: 'error', // java.util.logging's highest level
  critical: 'critical',
  crit: 'critical',
  alert: 'critical', // syslog 1: above crit, below emerg
  fatal: 'fatal',
  emerg: 'fatal',
  emergency: 'fatal',
  panic: 'fatal',
};

const WORDS = new Map<string, Level>(Object.entries(SYNONYMS));

// Bit (1 << length) per first letter: skips the slice-and-lookup for words that cannot be a level.
const CANDIDATE = new Uint16Array(26);
for (const w of WORDS.keys()) CANDIDATE[w.charCodeAt(0) - 97] |= 1 << w.length;

/**
 * A level given as text by the client (JSON key, OTLP severityText): known synonyms map to the canonical
 * name, anything else is kept lower-cased. Blank text gives undefined.
 */
export function normalizeLevel(text: string): string | undefined {
  const t = text.trim().toLowerCase();
  if (t === '') return undefined;
  return WORDS.get(t) ?? t;
}

/** pino / bunyan numeric levels. */
const NUMERIC: Record<number, Level> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A level given as a JSON value: strings normalized, pino/bunyan numbers named, other values not a level. */
export function levelFromValue(v: unknown): string | undefined {
  if (typeof v === 'string') return normalizeLevel(v);
  if (typeof v === 'number') return NUMERIC[v];
  return undefined;
}

const SYSLOG: Level[] = ['fatal', 'critical', 'critical', 'error', 'warn', 'notice', 'info', 'debug'];

/** RFC 5424 severity 0..7 (PRI & 7). */
export function levelFromSyslogSeverity(severity: number): Level {
  return SYSLOG[severity & 7]!;
}

/** OTLP SeverityNumber 1..24 (TRACE 1-4 ... FATAL 21-24); 0 or out of range is unspecified. */
export function levelFromOtlpSeverity(n: number): Level | undefined {
  if (!Number.isInteger(n) || n < 1 || n > 24) return undefined;
  return (['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const)[Math.floor((n - 1) / 4)];
}

/** Android logcat priority letters. */
export function levelFromLogcatLetter(c: number): Level | undefined {
  switch (c) {
    case 86:
      return 'trace'; // V
    case 68:
      return 'debug'; // D
    case 73:
      return 'info'; // I
    case 87:
      return 'warn'; // W
    case 69:
      return 'error'; // E
    case 70: // F
    case 65:
      return 'fatal'; // A (assert)
    default:
      return undefined;
  }
}

/** How far after `start` a severity word may begin (BGL puts it ~85 chars after its epoch). */
export const LEVEL_WINDOW = 128;

// A word glued to these is part of a name (`error.log`, `no_error`, `/var/log/warn`), not a severity.
function isNameChar(c: number): boolean {
  return isAlnumCode(c) || c === 95 || c === 45 || c === 46 || c === 47 || c === 36 || c === 64;
}

// Title-case words common enough in prose (`Trace cache`, `Information:`) need a mark; these do not.
const TITLE_OK = new Set(['info', 'warn', 'warning', 'error', 'debug', 'fatal', 'critical']);

// A bracket-like mark around a word makes it a level in any case: `[error]`, `<warn>`, `(info)`, `level=debug`.
function isMarkBefore(c: number): boolean {
  return c === 91 || c === 60 || c === 40 || c === 61 || c === 124;
}
function isMarkAfter(c: number): boolean {
  return c === 93 || c === 62 || c === 41 || c === 124;
}

/**
 * The first severity word within LEVEL_WINDOW chars of `start`, as a whole token (not glued to a name):
 * UPPER case anywhere (`INFO`, `ALERT`); Title case anywhere for the usual level names (`Info`, `Warning`,
 * `Error`); any case when marked by brackets or `=`, or when it is the first word at `start` (after the
 * timestamp or the syslog tag: `info msg`, `error: msg`); lower case also when followed by `:`.
 */
export function detectLevel(s: string, start: number): Level | undefined {
  const end = Math.min(s.length, start + LEVEL_WINDOW);
  let i = start;
  let firstWord = true;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (!isAlphaCode(c)) {
      if (c !== 32 && c !== 9 && c !== 45 && c !== 58 && c !== 44) firstWord = false;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < s.length && isAlphaCode(s.charCodeAt(j))) j++;
    const len = j - i;
    if (len <= 13 && (CANDIDATE[(c | 32) - 97] & (1 << len)) !== 0) {
      const before = i > 0 ? s.charCodeAt(i - 1) : 32;
      const after = j < s.length ? s.charCodeAt(j) : 32;
      if (!isNameChar(before) && !isNameChar(after)) {
        const word = s.slice(i, j).toLowerCase();
        const level = WORDS.get(word);
        if (level !== undefined) {
          const kase = letterCase(s, i, j);
          const marked = firstWord || isMarkBefore(before) || isMarkAfter(after);
          if (kase === UPPER || (kase === TITLE && (marked || TITLE_OK.has(word))) || (kase === LOWER && (marked || after === 58))) {
            return level;
          }
        }
      }
    }
    firstWord = false;
    i = j;
  }
  return undefined;
}

const LOWER = 0;
const UPPER = 1;
const TITLE = 2;
const MIXED = 3;

function letterCase(s: string, i: number, j: number): number {
  const firstUpper = s.charCodeAt(i) <= 90;
  let lower = 0;
  for (let k = i + 1; k < j; k++) if (s.charCodeAt(k) >= 97) lower++;
  const rest = j - i - 1;
  if (firstUpper) return lower === 0 ? UPPER : lower === rest ? TITLE : MIXED;
  return lower === rest ? LOWER : MIXED;
}
