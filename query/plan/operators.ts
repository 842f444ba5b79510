/**
 * What a plan's operators are made of: compiled expressions, the streaming batch operators, sort
 * keys and the stats spec. The planner builds them (through the compilers of query/exec) and
 * query/exec runs them; the types live here so that exec depends on the plan and not back.
 */
import type { Column, ColumnBatch } from '../../storage/core/column';
import type { AggregateFactory, AggregateSite } from '../aggregates/types';
import type { Extractor } from '../parse/types';
import type { ComparisonOp } from '../syntax/ast';
import type { EvalContext, StaticType, Value } from '../value';

/**
 * A compiled expression: built once per query by the planner, evaluated per batch over a
 * selection. Constants are folded at compile time.
 */
export interface CompiledExpr {
  /** What the planner knows of the values: `time` values are microseconds and print as ISO 8601. */
  readonly type: StaticType;
  /** True for a duration literal (microseconds), which time arithmetic adds as is. */
  readonly duration: boolean;
  /** Set when the expression does not depend on rows. */
  readonly constant: { value: Value } | null;
  /** Stored fields the expression reads. */
  readonly fields: ReadonlySet<string>;
  /** Values at the selected rows (other rows are unspecified). */
  evaluate(batch: ColumnBatch, sel: Uint32Array, n: number): Column;
  /**
   * Optional, for predicates: narrows the selection in place to the rows where the value is true
   * and returns their count, exactly as `filterTrue(evaluate(...))` would, without building a
   * truth column. Use `selectTrue`, which falls back to that.
   */
  select?(batch: ColumnBatch, sel: Uint32Array, n: number): number;
  /** Set when the expression is a stored field read as is: its name. */
  readonly field?: string;
  /**
   * Set when the expression is `field <op> number`: a scan may evaluate it on stored blocks
   * directly (storage/segment/packed-select.ts) with the same result as `select`.
   */
  readonly numberComparison?: NumberComparison;
}

export interface NumberComparison {
  field: string;
  op: ComparisonOp;
  constant: number;
}

export interface CompileEnv {
  ctx: EvalContext;
  /** Static type of a field at this point of the pipeline. */
  typeOf(name: string): StaticType;
  /** Resolves aliases (`_timestamp` -> `_time`). */
  resolveField(name: string): string;
}

/**
 * Streaming stages over column batches: `where`/`search` narrow the selection, `extend` and
 * `parse` add columns, `keep`/`drop`/`rename` reshape the column set.
 */
export type BatchOp =
  | { kind: 'filter'; predicate: CompiledExpr }
  | { kind: 'extend'; assignments: { name: string; expr: CompiledExpr }[] }
  | { kind: 'parse'; field: string; extractor: Extractor; overwrite: boolean }
  | { kind: 'keep'; patterns: NameMatcher[] }
  | { kind: 'drop'; patterns: NameMatcher[] }
  | { kind: 'rename'; pairs: { from: string; to: string }[] };

/** A `keep`/`drop` name or glob. */
export interface NameMatcher {
  text: string;
  test(name: string): boolean;
  glob: boolean;
}

export interface SortKey {
  expr: CompiledExpr;
  direction: 'asc' | 'desc';
}

export interface StatsKeySpec {
  name: string;
  expr: CompiledExpr;
}

export interface StatsAggregateSpec {
  name: string;
  factory: AggregateFactory;
  site: AggregateSite;
  /** The aggregated expression; null for `count()` and `rate()`. For `countif` the condition. */
  arg: CompiledExpr | null;
  countif: boolean;
}

export interface StatsSpec {
  keys: StatsKeySpec[];
  aggregates: StatsAggregateSpec[];
}
