// Every aggregate's name, in the order messages list them (E004's "one of" in a stats column, and the
// first of equally near names for "did you mean"): the one list beside the aggregate files.

export const AGGREGATE_FUNCTION_NAMES = [
  'count',
  'countif',
  'sum',
  'avg',
  'min',
  'max',
  'dc',
  'values',
  'first',
  'last',
  'earliest',
  'latest',
  'median',
  'p50',
  'p75',
  'p90',
  'p95',
  'p99',
  'percentile',
  'stdev',
  'var',
  'rate',
] as const;

export type AggregateFunctionName = (typeof AGGREGATE_FUNCTION_NAMES)[number];
