// The moo lexer of the native query language, and the token stream nearley reads from.
//
// Lexing depends on where we are in a stage, so the moo lexer has four states:
//   stage  - right after the start or a `|`: the next word is a stage name
//   main   - expressions (where, extend, stats, sort, ...)
//   glob   - `from`, `keep`, `drop`: names and globs such as `web-*` (where `*` is not multiplication)
//   search - full-text terms, phrases, field=value
// Stage names are only keywords at stage position, so a field may be called `top` or `from`.

import moo from 'moo';
import type { Pos } from './ast';
import { QueryError, show } from './errors';
import { SourceMap } from './positions';

const NAME_CHARS = 'A-Za-z0-9_.@:';
/** A bare field name; `-` belongs to it only between two name characters (`status-code`, not `a - b`). */
export const NAME_SOURCE = `[A-Za-z_@](?:[${NAME_CHARS}]|-(?=[${NAME_CHARS}]))*`;
const NAME_END = `(?![${NAME_CHARS}]|-[${NAME_CHARS}])`;
const NUMBER_END = `(?![${NAME_CHARS}])`;

/** Reserved words of expressions (case-insensitive); use backticks for a field with such a name. */
export const KEYWORDS = ['and', 'or', 'not', 'in', 'like', 'has', 'is', 'null', 'true', 'false', 'as', 'by', 'asc', 'desc'] as const;

const KEYWORD_TYPES = new Map<string, string>(KEYWORDS.map((k) => [k, `kw_${k}`]));
const SEARCH_KEYWORD_TYPES = new Map<string, string>([
  ['and', 'kw_and'],
  ['or', 'kw_or'],
  ['not', 'kw_not'],
]);

/** How the words after a stage name are lexed: expressions, names with globs, or search terms. */
export type ArgumentLexing = 'main' | 'glob' | 'search';

/** A stage name as the lexer knows it: a keyword at stage position, and how its arguments lex. */
export interface StageWord {
  readonly name: string;
  readonly argumentLexing: ArgumentLexing;
}

function caseInsensitive(word: string): string {
  return word
    .split('')
    .map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`)
    .join('');
}

const ws = { match: /\s+/, lineBreaks: true };
const comment = /--[^\n]*/;
const string = { match: /"(?:[^"\\]|\\[^])*"|'(?:[^'\\]|\\[^])*'/, lineBreaks: true };
const unterminatedString = { match: /"(?:[^"\\]|\\[^])*|'(?:[^'\\]|\\[^])*/, lineBreaks: true };
const qident = /`[^`\n]*`/;
const unterminatedQident = /`[^`\n]*/;
const invalid = { match: /[^]/, lineBreaks: true };

function stageRules(stages: readonly StageWord[]): moo.Rules {
  const rules: moo.Rules = { ws, comment };
  for (const { name, argumentLexing } of stages) {
    rules[`st_${name}`] = { match: new RegExp(caseInsensitive(name) + NAME_END), next: argumentLexing };
  }
  rules['st_unknown'] = { match: new RegExp(NAME_SOURCE), next: 'main' };
  rules['other'] = { match: /[^]/, lineBreaks: true, next: 'main' };
  return rules;
}

const argumentStates: Record<ArgumentLexing, moo.Rules> = {
  main: {
    ws,
    comment,
    string,
    unterminated_string: unterminatedString,
    qident,
    unterminated_qident: unterminatedQident,
    variable: /\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/,
    duration: new RegExp(`[0-9]+(?:ms|[smhdw])${NUMBER_END}`),
    number: new RegExp(`[0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?${NUMBER_END}`),
    bad_number: /[0-9][A-Za-z0-9_.@:]*/,
    ident: { match: new RegExp(NAME_SOURCE), type: (text: string) => KEYWORD_TYPES.get(text.toLowerCase()) ?? 'ident' },
    eqeq: '==',
    match: '=~',
    neq: '!=',
    nmatch: '!~',
    lte: '<=',
    gte: '>=',
    eq: '=',
    lt: '<',
    gt: '>',
    plus: '+',
    minus: '-',
    star: '*',
    slash: '/',
    percent: '%',
    lparen: '(',
    rparen: ')',
    comma: ',',
    pipe: { match: '|', next: 'stage' },
    invalid,
  },
  glob: {
    ws,
    comment,
    qident,
    unterminated_qident: unterminatedQident,
    comma: ',',
    pipe: { match: '|', next: 'stage' },
    pattern: /(?:[A-Za-z0-9_.@:*?]|-(?!-))+/,
    invalid,
  },
  search: {
    ws,
    comment,
    string,
    unterminated_string: unterminatedString,
    qident,
    unterminated_qident: unterminatedQident,
    lparen: '(',
    rparen: ')',
    neq: '!=',
    eq: '=',
    pipe: { match: '|', next: 'stage' },
    term: {
      match: /(?:[^\s"'`()|=!-]|!(?!=)|-(?!-))+/,
      type: (text: string) => SEARCH_KEYWORD_TYPES.get(text.toLowerCase()) ?? 'term',
    },
    invalid,
  },
};

/** The moo lexer of a language with these stages; it is reset for every parse. */
export function createLexer(stages: readonly StageWord[]): moo.Lexer {
  return moo.states({ stage: stageRules(stages), ...argumentStates }, 'stage');
}

/** A token as the grammar sees it. */
export interface Token {
  type: string;
  /** Decoded text for strings and backtick names; the source text otherwise. */
  value: string;
  /** Source text (after variable substitution). */
  text: string;
  /** Numbers: the value; durations: microseconds. */
  num: number;
  /** Position in the user's text. */
  pos: Pos;
  /** End offset in the lexed (substituted) text. */
  end: number;
}

/** Characters from other languages: the message's hint and the replacement. */
const CHARACTER_HINTS: Record<string, [string, string]> = {
  '&': ['; use "and"', 'and'],
  '!': ['; use "not"', 'not'],
  '^': ['; use pow(x, y)', 'pow(x, y)'],
};
const NAME_HINT = '; write names with other characters in backticks: `name`';

function characterSuggestion(text: string): string {
  const hint = CHARACTER_HINTS[text];
  if (hint !== undefined) return hint[1];
  if (/\p{L}/u.test(text)) return 'write the name in backticks: `name`';
  return `remove ${show(text)}, or put it inside a string`;
}

/** A `$name` the substitution left alone: a `${name` missing its brace, or one glued to a word. */
function variableSuggestion(text: string): string {
  if (text.startsWith('${') && !text.endsWith('}')) return `${text}}`;
  return `put a space before ${text}: a $variable glued to a word is not replaced`;
}

/** The text as a string literal, when that is a short replacement; else the hint. */
function asString(text: string, hint: string): string {
  return text.length <= 200 ? `"${text}"` : hint;
}

const DURATION_MICROS: Record<string, number> = { ms: 1e3, s: 1e6, m: 60e6, h: 3600e6, d: 86400e6, w: 604800e6 };
/** Beyond these nesting depths the Earley parser slows down and walkers could overflow the stack. */
export const MAX_PAREN_DEPTH = 128;
const MAX_PREFIX_RUN = 64;

function decodeString(raw: string, at: (i: number) => Pos): string {
  let out = '';
  const body = raw.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const at0 = i;
    const e = body[i + 1]!;
    i++;
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '"':
      case "'":
      case '\\':
        out += e;
        break;
      case 'u': {
        const hex = body.slice(i + 1, i + 5);
        if (!/^[0-9A-Fa-f]{4}$/.test(hex)) {
          throw new QueryError(
            'E001',
            'invalid \\u escape: expected 4 hexadecimal digits after "\\u"',
            at(at0),
            'write 4 hexadecimal digits after \\u (\\u00e9), or \\\\u for a backslash and a u',
          );
        }
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
        break;
      }
      // Unknown escapes keep their backslash so that regular expressions such as "\d+" read naturally.
      default:
        out += '\\' + e;
    }
  }
  return out;
}

/**
 * The nearley lexer: wraps moo, drops whitespace and comments, decodes literals, maps positions to
 * the user's text and turns lexical problems into QueryErrors. One instance per parse.
 */
export class TokenStream {
  /** The last token handed to the parser, and the one before it (for "after ..." in messages). */
  last: Token | undefined;
  previous: Token | undefined;
  /** A QueryError raised inside next(); nearley wraps what next() throws, so the parser rethrows this. */
  pending: QueryError | undefined;
  private count = 0;
  private parenDepth = 0;
  private prefixRun = 0;

  /** `requireFrom`: E006 unless the first token is a stage name (`tokenize` lexes fragments too). */
  constructor(
    private readonly mooLexer: moo.Lexer,
    private readonly map: SourceMap,
    private readonly requireFrom = true,
  ) {}

  reset(chunk: string): void {
    this.mooLexer.reset(chunk);
    this.last = undefined;
    this.previous = undefined;
    this.pending = undefined;
    this.count = 0;
    this.parenDepth = 0;
    this.prefixRun = 0;
  }

  next(): Token | undefined {
    try {
      return this.nextToken();
    } catch (e) {
      if (e instanceof QueryError) this.pending = e;
      throw e;
    }
  }

  save(): undefined {
    return undefined;
  }

  formatError(): string {
    return 'syntax error';
  }

  has(_type: string): boolean {
    return true;
  }

  private nextToken(): Token | undefined {
    for (;;) {
      const t = this.mooLexer.next();
      if (t === undefined) return undefined;
      const type = t.type!;
      if (type === 'ws' || type === 'comment') continue;
      const pos = this.map.pos(t.offset);
      const token: Token = { type, value: t.text, text: t.text, num: 0, pos, end: t.offset + t.text.length };
      this.check(token, t.offset);
      this.previous = this.last;
      this.last = token;
      this.count++;
      return token;
    }
  }

  private check(token: Token, offset: number): void {
    const { type, text, pos } = token;
    if (this.requireFrom && this.count === 0 && type !== 'st_from' && type !== 'st_unknown') {
      const rest = this.map.original.trim();
      const suggestion = rest.length <= 200 ? `from <index> | ${rest}` : 'from <index> | ';
      throw new QueryError('E006', `a query must start with "from <index>", found ${show(text)}`, pos, suggestion);
    }
    this.guardNesting(token);
    switch (type) {
      case 'string':
        token.value = decodeString(text, (i) => this.map.pos(offset + 1 + i));
        return;
      case 'qident':
        token.value = text.slice(1, -1);
        if (token.value.trim() === '')
          throw new QueryError('E001', 'empty backtick name', pos, 'write the field name between the backticks: `name`');
        return;
      case 'number':
        token.num = Number(text);
        if (!Number.isFinite(token.num))
          throw new QueryError(
            'E001',
            `number ${show(text)} is out of range`,
            pos,
            asString(text, 'use a number below 1.8e308, or quote it as a string'),
          );
        return;
      case 'duration':
        token.num = durationMicros(text, pos);
        return;
      case 'unterminated_string':
        throw new QueryError('E007', `unterminated string: missing closing ${text[0]}`, pos, `close the string with \`${text[0]}\``);
      case 'unterminated_qident':
        throw new QueryError('E007', 'unterminated backtick name: missing closing `', pos, 'close the name with a backtick: `name`');
      case 'bad_number':
        throw badNumber(text, pos);
      case 'variable':
        throw new QueryError('E014', `unknown variable ${show(text)}`, pos, variableSuggestion(text));
      case 'term':
        // Substitution skips a `$name` glued to a word (`search$x`); as a search term it could not
        // be printed back without turning into a variable, and it is almost surely a typo.
        if (/^\$[A-Za-z_]/.test(text)) {
          throw new QueryError(
            'E014',
            `${show(text)} is glued to the word before it: put a space before a $variable`,
            pos,
            `put a space before ${text}`,
          );
        }
        return;
      case 'invalid':
        throw new QueryError(
          'E001',
          `unexpected character ${show(text)}${CHARACTER_HINTS[text]?.[0] ?? (/\p{L}/u.test(text) ? NAME_HINT : '')}`,
          pos,
          characterSuggestion(text),
        );
      default:
    }
  }

  // Deep right recursion (`not not not ...`, `- - - x`) and deep parentheses are quadratic for an
  // Earley parser and no real query needs them, so refuse them early.
  private guardNesting(token: Token): void {
    const { type, pos } = token;
    if (type === 'lparen') {
      if (++this.parenDepth > MAX_PAREN_DEPTH) {
        throw new QueryError(
          'E001',
          `parentheses nested more than ${MAX_PAREN_DEPTH} deep`,
          pos,
          `nest at most ${MAX_PAREN_DEPTH} parentheses`,
        );
      }
    } else if (type === 'rparen') {
      this.parenDepth = Math.max(0, this.parenDepth - 1);
    } else if (type === 'pipe') {
      this.parenDepth = 0;
    }
    if (type === 'kw_not' || type === 'minus') {
      if (++this.prefixRun > MAX_PREFIX_RUN) {
        throw new QueryError(
          'E001',
          `more than ${MAX_PREFIX_RUN} operators in a row`,
          pos,
          `write at most ${MAX_PREFIX_RUN} "not" or "-" in a row`,
        );
      }
    } else {
      this.prefixRun = 0;
    }
  }
}

function durationMicros(text: string, pos: Pos): number {
  const m = /^([0-9]+)(ms|[smhdw])$/.exec(text)!;
  const micros = Number(m[1]) * DURATION_MICROS[m[2]!]!;
  if (!Number.isSafeInteger(micros))
    throw new QueryError('E009', `duration ${show(text)} is too large`, pos, 'use a duration of at most about 285 years, e.g. 520w');
  return micros;
}

function badNumber(text: string, pos: Pos): QueryError {
  const m = /^([0-9]+(?:\.[0-9]+)?)([A-Za-z]+)$/.exec(text);
  if (m) {
    const fixed = durationFix(Number(m[1]), m[2]!.toLowerCase()) ?? 'write an integer and one of the units ms, s, m, h, d, w, e.g. 30d';
    return new QueryError('E009', `invalid duration ${show(text)}: use an integer and one of the units ms, s, m, h, d, w`, pos, fixed);
  }
  return new QueryError('E001', `invalid number ${show(text)}`, pos, asString(text, 'quote it as a string'));
}

const UNITS_LARGEST_FIRST = ['w', 'd', 'h', 'm', 's', 'ms'];

/** `5min` -> `5m`, `1.5h` -> `90m`: the same duration in the largest unit that makes it whole, or null. */
function durationFix(amount: number, unit: string): string | null {
  const guess = unit.startsWith('ms') || unit.startsWith('milli') ? 'ms' : unit.startsWith('mo') ? null : unit[0]!;
  const size = guess === null ? undefined : DURATION_MICROS[guess];
  if (size === undefined) return null;
  const micros = Math.round(amount * size);
  if (micros === 0) return `0${guess}`;
  if (Math.abs(micros - amount * size) > 1e-6 * size) return null;
  for (const name of UNITS_LARGEST_FIRST) {
    const each = DURATION_MICROS[name]!;
    if (micros % each === 0 && Number.isSafeInteger(micros)) return `${micros / each}${name}`;
  }
  return null;
}

/** Whether a name can be written bare (else it needs backticks). */
const BARE_NAME = new RegExp(`^${NAME_SOURCE}$`);
export function isBareName(name: string): boolean {
  return BARE_NAME.test(name) && !KEYWORD_TYPES.has(name.toLowerCase());
}

/** All tokens of a query (for tests and editor highlighting); throws QueryError like the parser. */
export function tokenize(text: string, lexer: moo.Lexer): Token[] {
  const stream = new TokenStream(lexer, new SourceMap(text), false);
  stream.reset(text);
  const out: Token[] = [];
  for (let t = stream.next(); t !== undefined; t = stream.next()) out.push(t);
  return out;
}

/** The lexer object compiled into the grammar; each parse passes its own TokenStream instead. */
export const grammarLexer = {
  reset(): void {},
  next(): undefined {
    return undefined;
  },
  save(): undefined {
    return undefined;
  },
  formatError(): string {
    return 'syntax error';
  },
  has(_type: string): boolean {
    return true;
  },
};
