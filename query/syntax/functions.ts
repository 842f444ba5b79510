// The scalar functions and aggregates of docs/language.md with their arity, for E004/E005/E010.

import type { AggregateFunctionName, ScalarFunctionName } from './ast';

export interface FunctionSpec {
  readonly min: number;
  /** Infinity for variadic functions. */
  readonly max: number;
  /** How the call is written, for messages and suggestions. */
  readonly signature: string;
}

const spec = (min: number, max: number, signature: string): FunctionSpec => ({ min, max, signature });
const ANY = Infinity;

export const SCALAR_FUNCTIONS: Readonly<Record<ScalarFunctionName, FunctionSpec>> = {
  lower: spec(1, 1, 'lower(s)'),
  upper: spec(1, 1, 'upper(s)'),
  len: spec(1, 1, 'len(s)'),
  trim: spec(1, 1, 'trim(s)'),
  ltrim: spec(1, 1, 'ltrim(s)'),
  rtrim: spec(1, 1, 'rtrim(s)'),
  substr: spec(2, 3, 'substr(s, start[, len])'),
  replace: spec(3, 3, 'replace(s, regex, with)'),
  split: spec(3, 3, 'split(s, sep, index)'),
  contains: spec(2, 2, 'contains(s, sub)'),
  startswith: spec(2, 2, 'startswith(s, prefix)'),
  endswith: spec(2, 2, 'endswith(s, suffix)'),
  match: spec(2, 2, 'match(s, regex)'),
  extract: spec(2, 3, 'extract(s, regex[, group])'),
  concat: spec(1, ANY, 'concat(a, b, ...)'),
  coalesce: spec(1, ANY, 'coalesce(a, b, ...)'),
  if: spec(3, 3, 'if(cond, then, else)'),
  case: spec(2, ANY, 'case(cond1, value1, ..., [else])'),
  isnull: spec(1, 1, 'isnull(x)'),
  isnotnull: spec(1, 1, 'isnotnull(x)'),
  tonumber: spec(1, 1, 'tonumber(x)'),
  tostring: spec(1, 1, 'tostring(x)'),
  toint: spec(1, 1, 'toint(x)'),
  round: spec(1, 2, 'round(x[, digits])'),
  floor: spec(1, 1, 'floor(x)'),
  ceil: spec(1, 1, 'ceil(x)'),
  abs: spec(1, 1, 'abs(x)'),
  sqrt: spec(1, 1, 'sqrt(x)'),
  ln: spec(1, 1, 'ln(x)'),
  log10: spec(1, 1, 'log10(x)'),
  pow: spec(2, 2, 'pow(x, y)'),
  exp: spec(1, 1, 'exp(x)'),
  least: spec(1, ANY, 'least(a, b, ...)'),
  greatest: spec(1, ANY, 'greatest(a, b, ...)'),
  now: spec(0, 0, 'now()'),
  bin: spec(2, 2, 'bin(t, duration)'),
  strftime: spec(2, 2, 'strftime(t, format)'),
  strptime: spec(2, 2, 'strptime(s, format)'),
  json_extract: spec(2, 2, 'json_extract(s, "$.a.b")'),
  url_decode: spec(1, 1, 'url_decode(s)'),
  md5: spec(1, 1, 'md5(s)'),
  sha256: spec(1, 1, 'sha256(s)'),
};

export const AGGREGATE_FUNCTIONS: Readonly<Record<AggregateFunctionName, FunctionSpec>> = {
  count: spec(0, 1, 'count() or count(field)'),
  countif: spec(1, 1, 'countif(condition)'),
  sum: spec(1, 1, 'sum(x)'),
  avg: spec(1, 1, 'avg(x)'),
  min: spec(1, 1, 'min(x)'),
  max: spec(1, 1, 'max(x)'),
  dc: spec(1, 1, 'dc(field)'),
  values: spec(1, 1, 'values(field)'),
  first: spec(1, 1, 'first(field)'),
  last: spec(1, 1, 'last(field)'),
  earliest: spec(1, 1, 'earliest(field)'),
  latest: spec(1, 1, 'latest(field)'),
  median: spec(1, 1, 'median(x)'),
  p50: spec(1, 1, 'p50(x)'),
  p75: spec(1, 1, 'p75(x)'),
  p90: spec(1, 1, 'p90(x)'),
  p95: spec(1, 1, 'p95(x)'),
  p99: spec(1, 1, 'p99(x)'),
  percentile: spec(2, 2, 'percentile(x, q)'),
  stdev: spec(1, 1, 'stdev(x)'),
  var: spec(1, 1, 'var(x)'),
  rate: spec(0, 0, 'rate()'),
};

export function isScalarFunction(name: string): name is ScalarFunctionName {
  return Object.prototype.hasOwnProperty.call(SCALAR_FUNCTIONS, name);
}

export function isAggregateFunction(name: string): name is AggregateFunctionName {
  return Object.prototype.hasOwnProperty.call(AGGREGATE_FUNCTIONS, name);
}

/** Names from other query languages, mapped to ours (better than edit distance for E004). */
export const FUNCTION_HINTS: Readonly<Record<string, string>> = {
  tolower: 'lower',
  toupper: 'upper',
  length: 'len',
  strlen: 'len',
  substring: 'substr',
  strcat: 'concat',
  iff: 'if',
  iif: 'if',
  todouble: 'tonumber',
  toreal: 'tonumber',
  tolong: 'toint',
  todecimal: 'tonumber',
  isempty: 'isnull',
  isnotempty: 'isnotnull',
  log: 'ln',
  power: 'pow',
  ceiling: 'ceil',
  dcount: 'dc',
  distinct_count: 'dc',
  count_distinct: 'dc',
  estdc: 'dc',
  stddev: 'stdev',
  variance: 'var',
  mean: 'avg',
  average: 'avg',
  percentiles: 'percentile',
  perc: 'percentile',
  make_set: 'values',
  list: 'values',
  arg_min: 'min',
  arg_max: 'max',
  take_any: 'first',
  any: 'first',
  per_second: 'rate',
  ago: 'now() - 1h',
  bucket: 'bin',
  floor_time: 'bin',
  regex_match: 'match',
  extract_regex: 'extract',
  parse_json: 'json_extract',
  urldecode: 'url_decode',
  hash_md5: 'md5',
  hash_sha256: 'sha256',
};
