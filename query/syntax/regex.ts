// Validation of user regular expressions and `parse pattern` patterns (E008): the one place where a
// user pattern is judged, at checking time, so that the planner never meets a pattern it cannot run.
//
// Patterns run on RE2 (linear time), so RE2 itself is the judge: a pattern is valid exactly when RE2
// compiles it. Constructs a linear-time engine cannot run (lookaround, backreferences, atomic groups,
// counts over 1000) are named first, with a clearer message than RE2's.

import RE2 from 're2';
import type { Pos } from './ast';
import { QueryError } from './errors';

/** Why RE2 (or a check before it) refuses a pattern, and what to write instead. */
export interface PatternRefusal {
  message: string;
  suggestion: string;
}

export type RegexCheck = { ok: true; groups: string[] } | ({ ok: false } & PatternRefusal);

/** re2 refuses repetition counts above 1000. */
const MAX_REPEAT = 1000;

const LINEAR = 'RE2 runs patterns in linear time';

/** RE2's refusals (its message starts with the reason) and what to do about each. */
const RE2_ADVICE: Array<[string, string]> = [
  ['missing )', 'close every ( with ), or escape a literal parenthesis as \\('],
  ['unexpected )', 'open the group with (, or escape a literal parenthesis as \\)'],
  ['missing ]', 'close the character class with ], or escape a literal bracket as \\['],
  ['invalid character class range: \\p', 'use a known Unicode class such as \\pL, \\p{Lu} or \\p{Greek}'],
  ['invalid character class range: \\P', 'use a known Unicode class such as \\PL, \\P{Lu} or \\P{Greek}'],
  ['invalid character class range: [:', 'use a known class such as [[:alpha:]], [[:digit:]] or [[:space:]]'],
  ['invalid character class range', 'write each range low to high, e.g. [a-z]'],
  ['invalid character class', 'check the class: [abc], [^abc], [a-z], [[:alpha:]] or \\pL'],
  [
    'invalid repetition size',
    `write counts as {n}, {n,} or {min,max} with min <= max, at most ${MAX_REPEAT} with nested counts multiplied together`,
  ],
  ['bad repetition operator', 'use one quantifier at a time (a* not a**), or escape a literal * + ? as \\*'],
  ['missing argument to repetition operator', 'put the quantifier after something to repeat, or escape a literal * + ? as \\*'],
  ['no argument for repetition operator', 'put the quantifier after something to repeat, or escape a literal * + ? as \\*'],
  ['invalid escape sequence', 'escape only punctuation with \\ (\\. \\( \\[) or use a class such as \\d \\w \\s'],
  ['trailing \\', 'end the pattern with \\\\ to match a backslash'],
  ['invalid named capture group', 'name groups with letters, digits and _: (?<name>...)'],
  ['duplicate capture group name', 'give each named group its own name'],
  ['invalid perl operator', 'RE2 groups are (...), (?:...), (?<name>...) and flags such as (?i)'],
  ['invalid UTF-8', 'write the pattern as valid text'],
  ['pattern too large', 'use a shorter pattern, smaller counts or fewer wildcards'],
];

function re2Advice(message: string): string {
  for (const [start, advice] of RE2_ADVICE) if (message.startsWith(start)) return advice;
  return 'write the pattern in RE2 syntax, escaping a literal special character with \\';
}

/** Null when RE2 compiles `source` with `flags`, else its reason and advice. */
export function re2Refusal(source: string, flags = ''): PatternRefusal | null {
  try {
    new RE2(source, flags);
    return null;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { message, suggestion: re2Advice(message) };
  }
}

/** The E008 error for a refused pattern at `pos` (the pattern's string literal). */
export function patternError(what: string, refusal: PatternRefusal, pos: Pos): QueryError {
  return new QueryError('E008', `invalid ${what}: ${refusal.message}`, pos, refusal.suggestion);
}

function fail(message: string, suggestion: string): RegexCheck {
  return { ok: false, message, suggestion };
}

/** A user regex as RE2 takes it, with the names of its named groups (`(?<n>` and `(?P<n>`). */
export function checkRegex(source: string): RegexCheck {
  const groups: string[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const e = source[i + 1];
      if (e === undefined) return fail('it ends with a lone backslash', 'end the pattern with \\\\ to match a backslash');
      const backreference = !inClass && (/[1-9]/.test(e) || (e === 'k' && source[i + 2] === '<'));
      if (backreference) {
        return fail(
          `backreferences such as \\${e} are not supported (${LINEAR})`,
          "repeat the group's pattern instead of referring back to it",
        );
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      // `[]a]` and `[^]a]`: a leading `]` is a literal in re2.
      inClass = true;
      if (source[i + 1] === '^') i++;
      if (source[i + 1] === ']') i++;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(i, i + 24));
      if (m && (Number(m[1]) > MAX_REPEAT || (m[2] !== undefined && m[2] !== '' && Number(m[2]) > MAX_REPEAT))) {
        return fail(
          `repetition count ${m[0]} is too large (at most ${MAX_REPEAT})`,
          `use a count of at most ${MAX_REPEAT}, or + for "one or more"`,
        );
      }
    }
    if (c === '(' && source[i + 1] === '?') {
      const rest = source.slice(i + 2, i + 160);
      const twoConditions = 'drop it and combine two conditions instead: x =~ "a" and x !~ "b"';
      if (rest.startsWith('=') || rest.startsWith('!')) return fail(`lookahead (?= and (?! is not supported (${LINEAR})`, twoConditions);
      if (rest.startsWith('<=') || rest.startsWith('<!'))
        return fail(`lookbehind (?<= and (?<! is not supported (${LINEAR})`, twoConditions);
      if (rest.startsWith('P=') || rest.startsWith('P>')) {
        return fail(
          `backreferences such as (?P=name) are not supported (${LINEAR})`,
          "repeat the group's pattern instead of referring back to it",
        );
      }
      if (rest.startsWith('>')) return fail('atomic groups (?> are not supported', 'use a plain group (?:...)');
      const named = /^P?<([^>]*)>/.exec(rest);
      if (named) groups.push(named[1]!);
    }
  }
  const refusal = re2Refusal(source);
  return refusal === null ? { ok: true, groups } : { ok: false, ...refusal };
}

export type PatternCheck = { ok: true; fields: string[] } | ({ ok: false } & PatternRefusal);

const CAPTURE = /<([A-Za-z_@][A-Za-z0-9_.@:-]*)>/g;

/**
 * `parse pattern(f, "<ip> - <user> [<ts>] ...")`: `<name>` captures up to the next literal text,
 * `<_>` skips. A `<` that does not open such a capture is literal text, except an unclosed `<name`
 * at the very end, which is surely a capture missing its `>`.
 */
export function checkPattern(pattern: string): PatternCheck {
  const unclosed = /<[A-Za-z_@][A-Za-z0-9_.@:-]*$/.exec(pattern);
  if (unclosed) return { ok: false, message: `unclosed capture ${unclosed[0]}`, suggestion: `close the capture: ${unclosed[0]}>` };
  const fields: string[] = [];
  let lastEnd = -1;
  let lastName = '';
  for (const m of pattern.matchAll(CAPTURE)) {
    const name = m[1]!;
    if (m.index === lastEnd) {
      return {
        ok: false,
        message: `captures <${lastName}> and <${name}> need literal text between them`,
        suggestion: `put the text that separates them between the captures, e.g. <${lastName}> <${name}>`,
      };
    }
    if (name !== '_') {
      if (fields.includes(name))
        return {
          ok: false,
          message: `capture <${name}> appears twice`,
          suggestion: `rename one of them, e.g. <${name}_2>, or skip it with <_>`,
        };
      fields.push(name);
    }
    lastEnd = m.index + m[0].length;
    lastName = name;
  }
  if (fields.length === 0)
    return { ok: false, message: 'the pattern has no <name> capture', suggestion: 'capture a field with <name>, e.g. "<ip> - <user>"' };
  return { ok: true, fields };
}
