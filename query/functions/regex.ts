// Regular-expression functions. Patterns are constant string literals compiled once, at plan time,
// with RE2 behind a literal prefilter (userregex.ts); a pattern RE2 refuses is E008 for that argument.

import type { Value } from '../value';
import { constantString, fn, isTimeArg, textOf } from './common';
import { FunctionArgumentError, type FunctionSite, type ScalarFactory, type ScalarFamily } from './types';
import { regexGroups, UserRegex } from './userregex';

export { compileRegex, regexGroups, requiredLiteral, UserRegex } from './userregex';

function siteRegex(site: FunctionSite, i: number): UserRegex {
  return new UserRegex(constantString(site, i, 'regular expression'), i);
}

/** match(s, regex): whether the regex matches anywhere in s (unanchored); null s gives null. */
export const match: ScalarFactory = (site) => {
  const re = siteRegex(site, 1);
  const time = isTimeArg(site, 0);
  return fn('boolean', (args) => {
    const s = textOf(args[0]!, time);
    return s === null ? null : re.test(s);
  });
};

/**
 * extract(s, regex[, group]): the text of a capture group of the first match; group 1 by default (the
 * whole match when the regex has no group); the group may be a number or a group name. No match, or a
 * group that did not take part, gives null. A constant group that the regex lacks is E005.
 */
export const extract: ScalarFactory = (site) => {
  const re = siteRegex(site, 1);
  const groups = regexGroups(re.source);
  const time = isTimeArg(site, 0);
  const hasGroupArg = site.argTypes.length > 2;
  const g = site.constants[2];
  if (!hasGroupArg || typeof g === 'number') {
    const index = hasGroupArg ? (g as number) : groups.count > 0 ? 1 : 0;
    if (!Number.isInteger(index) || index < 0 || index > groups.count) {
      const range = groups.count === 0 ? '0 (the whole match)' : `a group from 0 to ${groups.count}`;
      throw new FunctionArgumentError(`extract(): the regular expression has no group ${index} (it has ${groups.count})`, 'E005', 2, range);
    }
    return fn('string', (args) => {
      const s = textOf(args[0]!, time);
      if (s === null) return null;
      const m = re.exec(s);
      return m === null ? null : (m[index] ?? null);
    });
  }
  if (typeof g === 'string') {
    if (!groups.names.includes(g)) {
      const named =
        groups.names.length > 0
          ? `one of the named groups: ${groups.names.map((name) => JSON.stringify(name)).join(', ')}`
          : 'a group number, e.g. 1';
      throw new FunctionArgumentError(`extract(): the regular expression has no group named ${JSON.stringify(g)}`, 'E005', 2, named);
    }
    return fn('string', (args) => {
      const s = textOf(args[0]!, time);
      if (s === null) return null;
      const m = re.exec(s);
      return m === null ? null : (m.groups?.[g] ?? null);
    });
  }
  // A group computed per row: a number is an index, a string a name, anything else null.
  return fn('string', (args) => {
    const s = textOf(args[0]!, time);
    const group = args[2]!;
    if (s === null || group === null || typeof group === 'boolean') return null;
    const m = re.exec(s);
    if (m === null) return null;
    if (typeof group === 'string') return m.groups?.[group] ?? null;
    return Number.isInteger(group) && group >= 0 ? (m[group] ?? null) : null;
  });
};

/**
 * The replacement text in RE2/JS form: `$1`, `$<name>`, `$&` and `$$` as JS has them, plus `${name}`
 * and `${1}` (as in .NET and Python) rewritten to the JS form.
 */
export function replacementText(text: string): string {
  if (text.indexOf('${') < 0) return text;
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*|\d{1,2})\}/g, (_, ref: string) =>
    /^\d/.test(ref) ? `$${ref.padStart(2, '0')}` : `$<${ref}>`,
  );
}

/**
 * replace(s, regex, with): every match replaced (RE2 global replace); `with` may refer to groups with
 * `$1`, `${1}`, `$<name>`, `${name}` and to the whole match with `$&`; `$$` is a literal `$`.
 */
export const replace: ScalarFactory = (site) => {
  const re = siteRegex(site, 1);
  const t0 = isTimeArg(site, 0);
  const t2 = isTimeArg(site, 2);
  const w = site.constants[2];
  if (w !== undefined) {
    const withText = textOf(w, t2);
    if (withText === null) return fn('string', () => null);
    const repl = replacementText(withText);
    return fn('string', (args) => {
      const s = textOf(args[0]!, t0);
      return s === null ? null : re.replace(s, repl);
    });
  }
  return fn('string', (args): Value => {
    const s = textOf(args[0]!, t0);
    const withText = textOf(args[2]!, t2);
    return s === null || withText === null ? null : re.replace(s, replacementText(withText));
  });
};

export const REGEX_FUNCTIONS = {
  match: { min: 2, max: 2, signature: 'match(s, regex)', aliases: ['regex_match'], factory: match },
  extract: { min: 2, max: 3, signature: 'extract(s, regex[, group])', aliases: ['extract_regex'], factory: extract },
  replace: { min: 3, max: 3, signature: 'replace(s, regex, with)', factory: replace },
} satisfies ScalarFamily;
