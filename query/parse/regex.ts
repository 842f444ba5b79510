// `parse regex(f, "(?<name>...)")`: the named groups of the first match become fields (RE2, linear
// time, behind the literal prefilter of functions/userregex.ts); unnamed groups are ignored, a group that did not take part gives nothing, and captures follow
// the numeric-capture rule. No match gives no fields.

import { regexGroups, UserRegex } from '../functions/userregex';
import { FunctionArgumentError } from '../functions/types';
import type { Value } from '../value';
import { captureValue, setField } from './common';
import type { Extractor } from './types';

export function regexExtractor(pattern: string): Extractor {
  const re = new UserRegex(pattern, 1);
  const names = regexGroups(pattern).names;
  if (names.length === 0) {
    throw new FunctionArgumentError('the regular expression has no named group (?<name>...) to extract', 'E008', 1);
  }
  return {
    fields: names,
    extract(text: string): Record<string, Value> {
      const out: Record<string, Value> = {};
      const m = re.exec(text);
      const groups = m?.groups;
      if (groups === undefined) return out;
      for (let i = 0; i < names.length; i++) {
        const v = groups[names[i]!];
        if (v !== undefined) setField(out, names[i]!, captureValue(v));
      }
      return out;
    },
  };
}
