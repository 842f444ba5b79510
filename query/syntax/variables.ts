// `$name` substitution (docs/api.md `variables`): before parsing, each `$name` (or `${name}`) outside string
// literals, backtick names and comments becomes a quoted, escaped string literal of its value.

import { QueryError } from './errors';
import { quote } from './print';
import { SourceMap, type Replacement } from './positions';
import { nearest } from './suggest';

export interface Substituted {
  text: string;
  /** Maps positions in `text` back to the original query. */
  map: SourceMap;
}

const VARIABLE = /\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})/y;
const NAME_CHAR = /[A-Za-z0-9_]/;

/** Value of a variable as string literal text; non-strings go through String(). */
function literal(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  try {
    return quote(String(value));
  } catch {
    return quote(Object.prototype.toString.call(value)); // e.g. an object without a prototype
  }
}

/** One `$name` or `${name}` in the text. */
interface VariableToken {
  at: number;
  length: number;
  name: string;
}

/** Each variable reference outside string literals, backtick names and comments, in text order. */
function* variableTokens(text: string): Generator<VariableToken> {
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const end = closingQuote(text, i);
      if (end < 0) return; // unterminated: the lexer reports E007 there
      i = end + 1;
    } else if (c === '`') {
      const end = text.indexOf('`', i + 1);
      const nl = text.indexOf('\n', i + 1);
      if (end < 0 || (nl >= 0 && nl < end)) return;
      i = end + 1;
    } else if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl;
    } else if (c === '$' && (i === 0 || !NAME_CHAR.test(text[i - 1]!))) {
      VARIABLE.lastIndex = i;
      const m = VARIABLE.exec(text);
      if (!m) {
        i++;
        continue;
      }
      yield { at: i, length: m[0].length, name: (m[1] ?? m[2])! };
      i += m[0].length;
    } else {
      i++;
    }
  }
}

/**
 * Substitutes variables and keeps a map back to the original text. Throws QueryError E014 at the
 * first unknown variable.
 */
export function substitute(text: string, variables: Readonly<Record<string, unknown>> = {}): Substituted {
  const replacements: Replacement[] = [];
  let out = '';
  let copied = 0;
  for (const { at, length, name } of variableTokens(text)) {
    if (!Object.prototype.hasOwnProperty.call(variables, name)) {
      const pos = new SourceMap(text).posOfOriginal(at);
      const known = Object.keys(variables);
      const hint = known.length > 0 ? `; known variables: ${known.map((k) => '$' + k).join(', ')}` : '';
      const close = nearest(name, known);
      const suggestion = close !== null ? `$${close}` : `give $${name} a value in the request's variables, or write the value itself`;
      throw new QueryError('E014', `unknown variable $${name}${hint}`, pos, suggestion);
    }
    const value = literal(variables[name]);
    out += text.slice(copied, at);
    replacements.push({ at: out.length, length: value.length, origAt: at, origLength: length });
    out += value;
    copied = at + length;
  }
  out += text.slice(copied);
  return { text: out, map: new SourceMap(text, replacements) };
}

/** The names of the variables the text refers to, each once, in order of first use. */
export function variableNames(text: string): string[] {
  return [...new Set(Array.from(variableTokens(text), (token) => token.name))];
}

/** Index of the quote that closes the string starting at `start`, or -1. */
function closingQuote(text: string, start: number): number {
  const q = text[start];
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === q) return i;
  }
  return -1;
}

/** Replaces `$name` tokens with quoted, escaped string literals; throws QueryError E014 for unknown ones. */
export function substituteVariables(text: string, variables: Readonly<Record<string, unknown>>): string {
  return substitute(text, variables).text;
}
