// What the checks of calls (E004/E005/E010) read of the scalar functions and aggregates: the scalar
// functions' registry (each defined with its implementation), the aggregates' specs, and the names
// other query languages use.

import { SCALAR_FUNCTIONS, type Alias, type FunctionSpec } from '../functions';
import type { AggregateFunctionName } from './ast';

export { SCALAR_FUNCTIONS, isScalarFunction, type FunctionSpec } from '../functions';

const spec = (min: number, max: number, signature: string, aliases: readonly Alias[] = []): FunctionSpec => ({
  min,
  max,
  signature,
  aliases,
});

export const AGGREGATE_FUNCTIONS: Readonly<Record<AggregateFunctionName, FunctionSpec>> = {
  count: spec(0, 1, 'count() or count(field)'),
  countif: spec(1, 1, 'countif(condition)'),
  sum: spec(1, 1, 'sum(x)'),
  avg: spec(1, 1, 'avg(x)', ['mean', 'average']),
  min: spec(1, 1, 'min(x)', ['arg_min']),
  max: spec(1, 1, 'max(x)', ['arg_max']),
  dc: spec(1, 1, 'dc(field)', ['dcount', 'distinct_count', 'count_distinct', 'estdc']),
  values: spec(1, 1, 'values(field)', ['make_set', 'list']),
  first: spec(1, 1, 'first(field)', ['take_any', 'any']),
  last: spec(1, 1, 'last(field)'),
  earliest: spec(1, 1, 'earliest(field)'),
  latest: spec(1, 1, 'latest(field)'),
  median: spec(1, 1, 'median(x)'),
  p50: spec(1, 1, 'p50(x)'),
  p75: spec(1, 1, 'p75(x)'),
  p90: spec(1, 1, 'p90(x)'),
  p95: spec(1, 1, 'p95(x)'),
  p99: spec(1, 1, 'p99(x)'),
  percentile: spec(2, 2, 'percentile(x, q)', ['percentiles', 'perc']),
  stdev: spec(1, 1, 'stdev(x)', ['stddev']),
  var: spec(1, 1, 'var(x)', ['variance']),
  rate: spec(0, 0, 'rate()', ['per_second']),
};

export function isAggregateFunction(name: string): name is AggregateFunctionName {
  return Object.prototype.hasOwnProperty.call(AGGREGATE_FUNCTIONS, name);
}

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
