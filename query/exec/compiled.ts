/**
 * A compiled expression: built once per query by the planner, evaluated per batch over a
 * selection. Constants are folded at compile time.
 */
import type { Column } from '../../storage/core/column';
import type { EvalContext, StaticType, Value } from '../value';
import type { ComparisonOp } from './compare';
import { filterTrue, type Batch } from './vectors';

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
  evaluate(batch: Batch, sel: Uint32Array, n: number): Column;
  /**
   * Optional, for predicates: narrows the selection in place to the rows where the value is true
   * and returns their count, exactly as `filterTrue(evaluate(...))` would, without building a
   * truth column. Use `selectTrue`, which falls back to that.
   */
  select?(batch: Batch, sel: Uint32Array, n: number): number;
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

export function constantExpr(value: Value, type: StaticType, duration = false): CompiledExpr {
  const constant = { value };
  return {
    type,
    duration,
    constant,
    fields: new Set(),
    evaluate: (batch) => ({ kind: 'const', value, length: batch.rowCount }),
  };
}

export function staticTypeOfValue(value: Value): StaticType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  return 'any';
}

export function unionFields(...exprs: CompiledExpr[]): Set<string> {
  const out = new Set<string>();
  for (const expr of exprs) for (const field of expr.fields) out.add(field);
  return out;
}

/** Narrows the selection to the rows where a predicate is true; returns the new count. */
export function selectTrue(predicate: CompiledExpr, batch: Batch, sel: Uint32Array, n: number): number {
  if (predicate.select !== undefined) return predicate.select(batch, sel, n);
  return filterTrue(predicate.evaluate(batch, sel, n), sel, n);
}

/** A boolean-valued expression over the given inputs (comparisons, logic, text tests). */
export function booleanExpr(inputs: CompiledExpr[], evaluate: CompiledExpr['evaluate'], select?: CompiledExpr['select']): CompiledExpr {
  const expr: CompiledExpr = { type: 'boolean', duration: false, constant: null, fields: unionFields(...inputs), evaluate };
  if (select !== undefined) expr.select = select;
  return expr;
}
