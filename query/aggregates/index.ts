// The aggregates of docs/language.md, one factory per name (semantics in README.md).

import type { AggregateFunctionName } from '../syntax/ast';
import { count, countif, rate } from './count';
import { dc } from './dc';
import { earliest, first, last, latest } from './firstlast';
import { max, min } from './minmax';
import { avg, stdev, sum, variance } from './moments';
import { percentile } from './percentile';
import type { AggregateFactory } from './types';
import { values } from './values';

export const AGGREGATES_IMPL: Readonly<Record<AggregateFunctionName, AggregateFactory>> = {
  count,
  countif,
  rate,
  sum,
  avg,
  min,
  max,
  dc,
  values,
  first,
  last,
  earliest,
  latest,
  median: percentile,
  p50: percentile,
  p75: percentile,
  p90: percentile,
  p95: percentile,
  p99: percentile,
  percentile,
  stdev,
  var: variance,
};

export type { AggregateFactory, AggregateSite, AggregateState } from './types';
export { VALUES_LIMIT } from './values';
export { RELATIVE_ACCURACY } from './percentile';
export { HLL_M, SPARSE_LIMIT } from './hll';
