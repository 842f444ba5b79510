/**
 * Text matchers for `search`, `has`, `like`, `=~`: each compiled once per query. Search terms
 * and phrases are literals we escape ourselves, so they run on V8's regex engine (fast literal
 * search, and linear for a literal with fixed-width lookarounds); anything built from user
 * patterns (regexes, globs, `like`) runs on RE2, which is linear-time for every input.
 */
import RE2 from 're2';
import { forEachToken } from '../../storage/segment/tokenizer';
import { UserRegex } from '../functions/userregex';
import { escapeRegExp, likeRegex, tokenGlobRegex, TOKEN_CLASS, valueGlobRegex, type WildcardRegex } from '../syntax/wildcards';

export interface TextMatcher {
  test(text: string): boolean;
}

/** A wildcard pattern (already validated by the checker) on RE2. */
function re2(regex: WildcardRegex): RE2 {
  return new RE2(regex.source, regex.flags);
}

/** Case-insensitive match of `literal` with token boundaries on both ends (a whole token or token sequence). */
export function literalMatcher(literal: string): TextMatcher {
  const startsWithToken = literal.length > 0 && isTokenChar(literal.charCodeAt(0));
  const endsWithToken = literal.length > 0 && isTokenChar(literal.charCodeAt(literal.length - 1));
  const source = (startsWithToken ? `(?<![${TOKEN_CLASS}])` : '') + escapeRegExp(literal) + (endsWithToken ? `(?![${TOKEN_CLASS}])` : '');
  const regex = new RegExp(source, 'i');
  return { test: (text) => regex.test(text) };
}

function isTokenChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code >= 128;
}

/** A glob (`tim*out`, `err?r`) against each token of the text, case-insensitively, on RE2. */
export function globTokenMatcher(glob: string): TextMatcher {
  const regex = re2(tokenGlobRegex(glob));
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
  const regex = re2(valueGlobRegex(glob));
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
  const regex = re2(likeRegex(pattern));
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
