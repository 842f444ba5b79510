// `like` patterns and search globs as the RE2 patterns that run them: the user's text is escaped and
// only the wildcards become regex. One translation serves both the check (E008 when RE2 refuses the
// result, which only size can cause: `search ???...` thousands long) and the matchers in
// query/exec/text-match.ts.

import { re2Refusal, type PatternRefusal } from './regex';

/** Token characters as the segment tokenizer defines them: [A-Za-z0-9_] and every code unit >= 128. */
export const TOKEN_CLASS = 'A-Za-z0-9_\\u0080-\\uffff';

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export interface WildcardRegex {
  source: string;
  flags: string;
}

/** `like`: `%` any run, `_` one character, the rest literal; case-sensitive, whole value. */
export function likeRegex(pattern: string): WildcardRegex {
  const body = pattern
    .split('')
    .map((char) => (char === '%' ? '.*' : char === '_' ? '.' : escapeRegExp(char)))
    .join('');
  return { source: `^${body}$`, flags: 's' };
}

/** A search term glob (`tim*out`, `err?r`) against one token, case-insensitively (the token is lower-cased). */
export function tokenGlobRegex(glob: string): WildcardRegex {
  const body = glob
    .toLowerCase()
    .split('')
    .map((char) => (char === '*' ? `[${TOKEN_CLASS}]*` : char === '?' ? `[${TOKEN_CLASS}]` : escapeRegExp(char)))
    .join('');
  return { source: `^${body}$`, flags: '' };
}

/** A whole-value glob (`field=web-*`), case-insensitive. */
export function valueGlobRegex(glob: string): WildcardRegex {
  const body = glob
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : escapeRegExp(char)))
    .join('');
  return { source: `^${body}$`, flags: 'is' };
}

/** Null when RE2 runs the wildcard pattern, else why not. */
export function wildcardRefusal(regex: WildcardRegex): PatternRefusal | null {
  return re2Refusal(regex.source, regex.flags);
}
