// The registry of aggregates: every aggregate file's definitions (spec and factory, semantics in
// README.md), in the order of names.ts. query/syntax checks calls against it, the stats stage builds them.

import { inNameOrder } from '../functions/spec';
import { COUNT_AGGREGATES } from './count';
import { DC_AGGREGATES } from './dc';
import { FIRST_LAST_AGGREGATES } from './firstlast';
import { MIN_MAX_AGGREGATES } from './minmax';
import { MOMENT_AGGREGATES } from './moments';
import { AGGREGATE_FUNCTION_NAMES, type AggregateFunctionName } from './names';
import { PERCENTILE_AGGREGATES } from './percentile';
import type { AggregateDefinition, AggregateFactory } from './types';
import { VALUES_AGGREGATES } from './values';

const FAMILIES = [
  COUNT_AGGREGATES,
  MOMENT_AGGREGATES,
  MIN_MAX_AGGREGATES,
  DC_AGGREGATES,
  VALUES_AGGREGATES,
  FIRST_LAST_AGGREGATES,
  PERCENTILE_AGGREGATES,
];

// A name of names.ts that no file defines is a compile error here.
export const AGGREGATE_FUNCTIONS: Readonly<Record<AggregateFunctionName, AggregateDefinition>> = inNameOrder(
  'aggregate',
  AGGREGATE_FUNCTION_NAMES,
  FAMILIES,
);

export const AGGREGATES_IMPL: Readonly<Record<AggregateFunctionName, AggregateFactory>> = Object.fromEntries(
  AGGREGATE_FUNCTION_NAMES.map((name) => [name, AGGREGATE_FUNCTIONS[name].factory]),
) as Record<AggregateFunctionName, AggregateFactory>;

export function isAggregateFunction(name: string): name is AggregateFunctionName {
  return Object.prototype.hasOwnProperty.call(AGGREGATE_FUNCTIONS, name);
}

export { AGGREGATE_FUNCTION_NAMES, type AggregateFunctionName } from './names';
export type { AggregateDefinition, AggregateFactory, AggregateSite, AggregateState } from './types';
export { VALUES_LIMIT } from './values';
export { RELATIVE_ACCURACY } from './percentile';
export { HLL_M, SPARSE_LIMIT } from './hll';
