// Functions about nulls and conditions: the only ones that look at a null instead of passing it on.
// A condition is true only when it is the boolean true; null (and any non-boolean) counts as false,
// as in `where`.

import { commonType, fn } from './common';
import type { ScalarFactory, ScalarFamily } from './types';

/** coalesce(a, b, ...): the first argument that is not null (an empty string is a value), else null. */
export const coalesce: ScalarFactory = (site) =>
  fn(
    commonType(
      site,
      site.argTypes.map((_, i) => i),
    ),
    (args) => {
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!;
        if (v !== null) return v;
      }
      return null;
    },
  );

/** if(cond, a, b): a when cond is true, else b (also when cond is null). */
export const if_: ScalarFactory = (site) => fn(commonType(site, [1, 2]), (args) => (args[0] === true ? args[1]! : args[2]!));

/**
 * case(c1, v1, c2, v2, ..., [else]): the value after the first true condition; with an odd number of
 * arguments the last is the default, else no true condition gives null.
 */
export const case_: ScalarFactory = (site) => {
  const n = site.argTypes.length;
  const pairs = n >> 1;
  const hasElse = (n & 1) === 1;
  const valueIndexes: number[] = [];
  for (let i = 0; i < pairs; i++) valueIndexes.push(2 * i + 1);
  if (hasElse) valueIndexes.push(n - 1);
  return fn(commonType(site, valueIndexes), (args) => {
    for (let i = 0; i < pairs; i++) {
      if (args[2 * i] === true) return args[2 * i + 1]!;
    }
    return hasElse ? args[n - 1]! : null;
  });
};

/** isnull(x) / isnotnull(x): whether x is absent; an empty string is not null. */
export const isnull: ScalarFactory = () => fn('boolean', (args) => args[0] === null);
export const isnotnull: ScalarFactory = () => fn('boolean', (args) => args[0] !== null);

export const CONDITIONAL_FUNCTIONS = {
  coalesce: { min: 1, max: Infinity, signature: 'coalesce(a, b, ...)', factory: coalesce },
  if: { min: 3, max: 3, signature: 'if(cond, then, else)', aliases: ['iff', 'iif'], factory: if_ },
  case: { min: 2, max: Infinity, signature: 'case(cond1, value1, ..., [else])', factory: case_ },
  isnull: { min: 1, max: 1, signature: 'isnull(x)', aliases: ['isempty'], factory: isnull },
  isnotnull: { min: 1, max: 1, signature: 'isnotnull(x)', aliases: ['isnotempty'], factory: isnotnull },
} satisfies ScalarFamily;
