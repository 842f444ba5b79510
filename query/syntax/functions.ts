// What the checks of calls (E004/E005/E010) read of the scalar functions and aggregates: their
// registries, where each is defined with its implementation, and the names other query languages use.

import { AGGREGATE_FUNCTIONS } from '../aggregates';
import { SCALAR_FUNCTIONS, type FunctionSpec } from '../functions';

export { AGGREGATE_FUNCTIONS, isAggregateFunction } from '../aggregates';
export { SCALAR_FUNCTIONS, isScalarFunction, type FunctionSpec } from '../functions';

/** Names from other query languages, mapped to ours (better than edit distance for E004): each spec's aliases. */
export const FUNCTION_HINTS: Readonly<Record<string, string>> = hints([
  ...Object.entries(SCALAR_FUNCTIONS),
  ...Object.entries(AGGREGATE_FUNCTIONS),
]);

function hints(specs: readonly [string, FunctionSpec][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of specs) {
    for (const alias of spec.aliases ?? []) {
      const [other, suggestion] = typeof alias === 'string' ? [alias, name] : [alias.name, alias.suggestion];
      // Two functions claiming one name is a mistake of this build: it fails at load, not in a query.
      if (Object.prototype.hasOwnProperty.call(out, other)) throw new Error(`the alias ${other} is given twice`);
      out[other] = suggestion;
    }
  }
  return out;
}
