// Canonical text of expressions, search expressions and the parts of stages: lower-case keywords and
// function names, minimal parentheses, double-quoted strings. Parsing the printed text gives the same
// AST (positions aside). Each stage prints itself with these (query/stages). Used for plan printing
// and for matching `sort count() desc` to a stats column.

import type * as A from './ast';
import { isBareName } from './lexer';

const PRECEDENCE = { or: 1, and: 2, not: 3, compare: 4, add: 5, mul: 6, unary: 7, primary: 8 } as const;

function precedence(e: A.Expr): number {
  switch (e.kind) {
    case 'logical':
      return e.op === 'or' ? PRECEDENCE.or : PRECEDENCE.and;
    case 'not':
      return PRECEDENCE.not;
    case 'binary':
      if (e.op === '+' || e.op === '-') return PRECEDENCE.add;
      if (e.op === '*' || e.op === '/' || e.op === '%') return PRECEDENCE.mul;
      return PRECEDENCE.compare;
    case 'in':
    case 'like':
    case 'has':
    case 'regex':
    case 'isnull':
      return PRECEDENCE.compare;
    case 'negate':
      return PRECEDENCE.unary;
    case 'number':
      return e.value < 0 || Object.is(e.value, -0) ? PRECEDENCE.unary : PRECEDENCE.primary;
    case 'duration':
      return e.micros < 0 ? PRECEDENCE.unary : PRECEDENCE.primary;
    default:
      return PRECEDENCE.primary;
  }
}

function wrap(e: A.Expr, min: number): string {
  const s = exprToString(e);
  return precedence(e) < min ? `(${s})` : s;
}

/** A string literal that the lexer reads back as the same value. */
export function quote(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.charCodeAt(0);
    if (c === '"' || c === '\\') out += '\\' + c;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += '\\u' + code.toString(16).padStart(4, '0');
    else out += c;
  }
  return out + '"';
}

/** A field name, in backticks when it cannot be written bare. */
export function nameToString(name: string): string {
  return isBareName(name) ? name : '`' + name + '`';
}

const UNITS: Array<[string, number]> = [
  ['w', 604800e6],
  ['d', 86400e6],
  ['h', 3600e6],
  ['m', 60e6],
  ['s', 1e6],
  ['ms', 1e3],
];

export function durationToString(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  if (abs === 0) return '0s';
  for (const [unit, size] of UNITS) {
    if (abs % size === 0) return `${sign}${abs / size}${unit}`;
  }
  return `${sign}${abs / 1e3}ms`;
}

export function exprToString(e: A.Expr): string {
  switch (e.kind) {
    case 'string':
      return quote(e.value);
    case 'number':
      return Object.is(e.value, -0) ? '-0' : String(e.value);
    case 'boolean':
      return e.value ? 'true' : 'false';
    case 'null':
      return 'null';
    case 'duration':
      return durationToString(e.micros);
    case 'field':
      return nameToString(e.name);
    case 'negate': {
      const inner = wrap(e.operand, PRECEDENCE.unary);
      return inner.startsWith('-') ? `-(${inner})` : `-${inner}`;
    }
    case 'not':
      return `not ${wrap(e.operand, PRECEDENCE.not)}`;
    case 'logical': {
      const p = precedence(e) + 1;
      return e.operands.map((o) => wrap(o, p)).join(` ${e.op} `);
    }
    case 'binary': {
      const p = precedence(e);
      const leftMin = p === PRECEDENCE.compare ? p + 1 : p;
      return `${wrap(e.left, leftMin)} ${e.op} ${wrap(e.right, p + 1)}`;
    }
    case 'in':
      return `${wrap(e.operand, PRECEDENCE.add)} ${e.negated ? 'not in' : 'in'} (${e.list.map(exprToString).join(', ')})`;
    case 'like':
      return `${wrap(e.operand, PRECEDENCE.add)} ${e.negated ? 'not like' : 'like'} ${wrap(e.pattern, PRECEDENCE.add)}`;
    case 'has':
      return `${wrap(e.operand, PRECEDENCE.add)} ${e.negated ? 'not has' : 'has'} ${wrap(e.term, PRECEDENCE.add)}`;
    case 'regex':
      return `${wrap(e.operand, PRECEDENCE.add)} ${e.negated ? '!~' : '=~'} ${quote(e.pattern.value)}`;
    case 'isnull':
      return `${wrap(e.operand, PRECEDENCE.add)} ${e.negated ? 'is not null' : 'is null'}`;
    case 'call':
    case 'aggregate':
      return `${e.name}(${e.args.map(exprToString).join(', ')})`;
  }
}

// ---------------------------------------------------------------------------------------------------
// Search

const SEARCH_TERM = /^(?:[^\s"'`()|=!-]|!(?!=)|-(?!-))+$/;
const SEARCH_KEYWORDS = new Set(['and', 'or', 'not']);

function searchPrecedence(s: A.SearchExpr): number {
  return s.kind === 'or' ? 1 : s.kind === 'and' ? 2 : s.kind === 'not' ? 3 : 4;
}

function searchWrap(s: A.SearchExpr, min: number): string {
  const text = searchToString(s);
  return searchPrecedence(s) < min ? `(${text})` : text;
}

function searchWord(text: string): string {
  return SEARCH_TERM.test(text) && !SEARCH_KEYWORDS.has(text.toLowerCase()) ? text : quote(text);
}

export function searchToString(s: A.SearchExpr): string {
  switch (s.kind) {
    case 'term':
      return searchWord(s.text);
    case 'phrase':
      return quote(s.text);
    case 'fieldmatch':
      return `${nameToString(s.field)}${s.op}${s.quoted ? quote(s.value) : searchWord(s.value)}`;
    case 'not':
      return `NOT ${searchWrap(s.operand, 3)}`;
    case 'and':
      return s.operands.map((o) => searchWrap(o, 3)).join(' ');
    case 'or':
      return s.operands.map((o) => searchWrap(o, 2)).join(' OR ');
  }
}

// ---------------------------------------------------------------------------------------------------
// Parts of stages

const GLOB_WORD = /^(?:[A-Za-z0-9_.@:*?]|-(?!-))+$/;

/** A name or glob of `from`, `keep`, `drop`. */
export function patternToString(p: A.NamePattern): string {
  return GLOB_WORD.test(p.pattern) && !p.quoted ? p.pattern : '`' + p.pattern + '`';
}

/** A list of field names: `a, b`. */
export const fieldListToString = (xs: A.FieldName[]): string => xs.map((f) => nameToString(f.name)).join(', ');
