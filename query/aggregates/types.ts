/**
 * The contract of aggregate states. `stats` keeps one state per (group, aggregate). A shard (a
 * worker thread today, a cluster node later) builds partial states over its rows; the
 * coordinator merges partials and asks for the result. States travel as JSON (`toJSON` /
 * `fromJSON`), so merging across processes is exact for count/sum/min/max/avg/first/last/
 * earliest/latest/values/stdev/var and within the stated bounds for dc (HyperLogLog, < 2%) and
 * percentiles (DDSketch, < 1% relative error).
 */
import type { FunctionSpec } from '../functions/spec';
import type { EvalContext, StaticType, Value } from '../value';
import type { AggregateFunctionName } from './names';

export interface AggregateSite {
  name: AggregateFunctionName;
  /** Static type of the aggregated value (e.g. `time` for `min(_time)`); `any` for count(). */
  argType: StaticType;
  /** The constant second argument: `percentile(f, q)`'s q (0 < q <= 100). */
  parameter: number | null;
  /**
   * How many arguments the call has: `count()` is 0 (count rows), `count(f)` is 1 (count non-null
   * values). Left out, `count` counts rows, since `count()` is by far the common call.
   */
  argCount?: number;
  ctx: EvalContext;
}

export interface AggregateState {
  /**
   * Adds one row: `value` is the evaluated argument (null when absent; for `count()` and `rate()`
   * always null; for `countif` the condition's truth as a boolean), `time` the row's `_time`.
   * Must not allocate per call on the common path.
   */
  add(value: Value, time: number): void;
  /**
   * Optional: the same as `rows` calls of `add(null, time)` for a state whose result does not
   * depend on the times (`count()`): lets grouping hand over a batch's row count at once.
   */
  addRows?(rows: number): void;
  /** Folds another partial state of the same site into this one. */
  merge(other: AggregateState): void;
  /**
   * Optional: folds a JSON partial (as `toJSON` wrote it) in directly, without building a state
   * for it first; the same as `merge(fromJSON(json))` (cheap states with many groups use it).
   */
  mergeJSON?(json: unknown): void;
  /** The final value (`time`-typed results are microseconds; the caller formats them). */
  result(): Value;
  /** A JSON-safe partial state. */
  toJSON(): unknown;
}

export interface AggregateFactory {
  /** Static type of the result (`time` for min/max/first/last/earliest/latest of a time, ...). */
  resultType(site: AggregateSite): StaticType;
  create(site: AggregateSite): AggregateState;
  fromJSON(site: AggregateSite, json: unknown): AggregateState;
}

/** An aggregate's whole definition: what the query checks read, and its factory. */
export interface AggregateDefinition extends FunctionSpec {
  readonly factory: AggregateFactory;
}

/** An aggregate file's table (`satisfies` it: a name missing from names.ts is a compile error). */
export type AggregateFamily = Partial<Record<AggregateFunctionName, AggregateDefinition>>;
