/**
 * Text matchers for `search`, `has`, `like`, `=~`: each compiled once per query. Search terms
 * and phrases are literals we escape ourselves, so they run on V8's regex engine (fast literal
 * search, and linear for a literal with fixed-width lookarounds); anything built from user
 * patterns (regexes, globs, `like`) runs on RE2, which is linear-time for every input.
 */
import RE2 from 're2';
import { forEachToken } from '../../storage/segment/tokenizer';
import { UserRegex } from '../functions/userregex';

export interface TextMatcher {
  test(text: string): boolean;
}

/** Token characters as the segment tokenizer defines them: [A-Za-z0-9_] and every code unit >= 128. */
const TOKEN_CLASS = 'A-Za-z0-9_\\u0080-\\uffff';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Case-insensitive match of `literal` with token boundaries on both ends (a whole token or token sequence). */
export function literalMatcher(literal: string): TextMatcher {
  const startsWithToken = literal.length > 0 && isTokenChar(literal.charCodeAt(0));
  const endsWithToken = literal.length > 0 && isTokenChar(literal.charCodeAt(literal.length - 1));
  const source =
    (startsWithToken ? `(?<![${TOKEN_CLASS}])` : '') + escapeRegExp(literal) + (endsWithToken ? `(?![${TOKEN_CLASS}])` : '');
  const regex = new RegExp(source, 'i');
  return { test: (text) => regex.test(text) };
}

function isTokenChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code >= 128;
}

/** A glob (`tim*out`, `err?r`) against each token of the text, case-insensitively, on RE2. */
export function globTokenMatcher(glob: string): TextMatcher {
  const source = `^${glob
    .toLowerCase()
    .split('')
    .map((char) => (char === '*' ? `[${TOKEN_CLASS}]*` : char === '?' ? `[${TOKEN_CLASS}]` : escapeRegExp(char)))
    .join('')}$`;
  const regex = new RE2(source);
  // A glob of only wildcards matches any text with a token.
  return {
    test(text) {
      let found = false;
      forEachToken(text, (token) => {
        if (!found && regex.test(token)) found = true;
      });
      return found;
    },
  };
}

/** A whole-value glob (`field=web-*`), case-insensitive, on RE2. */
export function globValueMatcher(glob: string): TextMatcher {
  const source = `^${glob
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : escapeRegExp(char)))
    .join('')}$`;
  const regex = new RE2(source, 'is');
  return { test: (text) => regex.test(text) };
}

/** `like`: `%` any run, `_` one character, the rest literal; case-sensitive, whole value. */
export function likeMatcher(pattern: string): TextMatcher {
  if (!/[%_]/.test(pattern)) return { test: (text) => text === pattern };
  const inner = pattern.slice(1, -1);
  if (pattern.startsWith('%') && pattern.endsWith('%') && pattern.length >= 2 && !/[%_]/.test(inner)) {
    return { test: (text) => text.includes(inner) };
  }
  if (pattern.endsWith('%') && !/[%_]/.test(pattern.slice(0, -1))) {
    const prefix = pattern.slice(0, -1);
    return { test: (text) => text.startsWith(prefix) };
  }
  if (pattern.startsWith('%') && !/[%_]/.test(pattern.slice(1))) {
    const suffix = pattern.slice(1);
    return { test: (text) => text.endsWith(suffix) };
  }
  const source = `^${pattern
    .split('')
    .map((char) => (char === '%' ? '.*' : char === '_' ? '.' : escapeRegExp(char)))
    .join('')}$`;
  const regex = new RE2(source, 's');
  return { test: (text) => regex.test(text) };
}

/**
 * A user regex (`=~`), already validated by the parser, on RE2 behind a literal prefilter (rows
 * without the text every match must contain never reach RE2, whose per-call cost is microseconds).
 */
export function regexMatcher(pattern: string): TextMatcher {
  const regex = new UserRegex(pattern, 1);
  return { test: (text) => regex.test(text) };
}
