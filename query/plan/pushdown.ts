/**
 * Filter pushdown: turns the conjuncts of a `where` over stored fields into column-statistics
 * pruning hints (`status >= 500` -> segments whose max status is below 500 are skipped). Only
 * shapes whose semantics the statistics capture exactly are pushed; everything else still runs
 * as a row filter, so pushdown can skip segments but never change an answer.
 */
import type { ColumnPredicate } from '../../storage/scan';
import type { Expr } from '../syntax/ast';
import type { FieldValue } from '../../storage/core/event';
import type { Value } from '../value';

function literalValue(expr: Expr): Value | undefined {
  switch (expr.kind) {
    case 'string':
    case 'number':
    case 'boolean':
      return expr.value;
    default:
      return undefined;
  }
}

/** A string that reads as a number may equal numbers too, so both forms are candidates. */
function candidates(value: FieldValue): FieldValue[] {
  if (typeof value === 'string') {
    const number = Number(value);
    return value.trim() !== '' && Number.isFinite(number) ? [value, number] : [value];
  }
  return [value];
}

function conjuncts(expr: Expr): Expr[] {
  return expr.kind === 'logical' && expr.op === 'and' ? expr.operands.flatMap(conjuncts) : [expr];
}

/**
 * Pruning hints for a `where` expression. `isStored(name)` says the field is a stored column at
 * this point (not defined by an earlier extend/parse/rename); `_time` is left to the time range.
 */
export function pruningPredicates(expr: Expr, isStored: (name: string) => string | null): ColumnPredicate[] {
  const out: ColumnPredicate[] = [];
  for (const conjunct of conjuncts(expr)) {
    if (conjunct.kind === 'binary') {
      let { left, right } = conjunct;
      let op = conjunct.op;
      if (left.kind !== 'field' && right.kind === 'field') {
        [left, right] = [right, left];
        const flipped: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
        op = (flipped[op] ?? op) as typeof op;
      }
      if (left.kind !== 'field') continue;
      const column = isStored(left.name);
      const value = literalValue(right);
      if (column === null || column === '_time' || value === undefined || value === null) continue;
      if (op === '=') out.push({ column, oneOf: candidates(value) });
      else if (typeof value === 'number' && (op === '>' || op === '>=')) out.push({ column, min: value });
      else if (typeof value === 'number' && (op === '<' || op === '<=')) out.push({ column, max: value });
    } else if (conjunct.kind === 'in' && !conjunct.negated && conjunct.operand.kind === 'field') {
      const column = isStored(conjunct.operand.name);
      const values = conjunct.list.map(literalValue);
      if (column === null || column === '_time' || values.some((value) => value === undefined || value === null)) continue;
      out.push({ column, oneOf: (values as FieldValue[]).flatMap(candidates) });
    } else if (conjunct.kind === 'isnull' && conjunct.negated && conjunct.operand.kind === 'field') {
      const column = isStored(conjunct.operand.name);
      // `x is not null`: a segment where x is absent in every row cannot match.
      if (column !== null && column !== '_time') out.push({ column });
    }
  }
  return out;
}
