// The names and globs of `keep` and `drop`: their check and the matchers they run with.

import { nameMatcher, type NameMatcher } from '../exec/batch-ops';
import type { NamePattern } from '../syntax/ast';
import { show } from '../syntax/errors';
import { inBackticks } from '../syntax/suggest';
import type { ValidationContext } from './stage';

/** A bare pattern must look like a field name or glob (E001); a backtick name may be anything. */
export function checkFieldPatterns(patterns: NamePattern[], stage: string, context: ValidationContext): void {
  for (const p of patterns) {
    if (!p.quoted && !/^[A-Za-z_@*?][A-Za-z0-9_.@:*?-]*$/.test(p.pattern)) {
      context.error('E001', `expected a field name or glob after "${stage}", found ${show(p.pattern)}`, p.pos, inBackticks(p.pattern));
    }
  }
}

export function fieldMatchers(patterns: NamePattern[]): NameMatcher[] {
  return patterns.map((field) => nameMatcher(field.pattern, field.glob && !field.quoted));
}
