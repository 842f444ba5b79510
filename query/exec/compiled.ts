/**
 * A compiled expression: built once per query by the planner, evaluated per batch over a
 * selection. Constants are folded at compile time.
 */
import type { CompiledExpr } from '../plan/operators';
import type { StaticType, Value } from '../value';
import { filterTrue, type Batch } from './vectors';

// The types are part of the plan (plan/operators.ts): the planner builds them, exec evaluates them.
export type { CompiledExpr, CompileEnv, NumberComparison } from '../plan/operators';

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
