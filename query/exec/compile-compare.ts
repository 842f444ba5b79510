/**
 * Comparisons and text operators, with vectorized fast paths: a column against a constant reads
 * typed arrays directly, and a dictionary column is compared once per dictionary entry and then
 * looked up by code.
 */
import type { Column } from '../../storage/core/column';
import { literalMatcher, likeMatcher, regexMatcher, type TextMatcher } from './text-match';
import type { Value } from '../value';
import { numberAt, valueAt, valueToNumber } from './access';
import { compareNumbers, comparisonResult, compareValues, valueToTimeMicros, type ComparisonOp } from './compare';
import { booleanExpr, constantExpr, type CompiledExpr } from './compiled';
import { filterTrue, setTruth, truthColumn, type TruthColumn } from './vectors';

const FLIPPED: Record<ComparisonOp, ComparisonOp> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** Per-dictionary outcome tables, computed once per decoded block and predicate. */
function dictTable(cache: WeakMap<string[], Uint8Array>, dict: string[], outcome: (value: string) => 0 | 1 | 2): Uint8Array {
  let table = cache.get(dict);
  if (table === undefined) {
    table = new Uint8Array(dict.length);
    table[0] = 2;
    for (let code = 1; code < dict.length; code++) table[code] = outcome(dict[code]);
    cache.set(dict, table);
  }
  return table;
}

/** Fills `out` at the selected rows with `outcome(value)` per row, via a dictionary table when possible. */
function perValue(
  column: Column,
  sel: Uint32Array,
  n: number,
  out: TruthColumn,
  cache: WeakMap<string[], Uint8Array>,
  outcome: (value: Value) => 0 | 1 | 2,
): void {
  if (column.kind === 'dict') {
    const table = dictTable(cache, column.dict, outcome);
    const codes = column.codes;
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      setTruth(out, row, table[codes[row]] as 0 | 1 | 2);
    }
    return;
  }
  if (column.kind === 'const') {
    const result = outcome(column.value);
    for (let i = 0; i < n; i++) setTruth(out, sel[i], result);
    return;
  }
  for (let i = 0; i < n; i++) {
    const row = sel[i];
    setTruth(out, row, outcome(valueAt(column, row)));
  }
}

/** Keeps the selected rows whose dictionary code's outcome is true (1). */
function selectByTable(table: Uint8Array, codes: ArrayLike<number>, sel: Uint32Array, n: number): number {
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const row = sel[i];
    if (table[codes[row]] === 1) sel[kept++] = row;
  }
  return kept;
}

/**
 * Keeps the selected rows whose number compares true with `constant` (null and NaN rows never
 * do): one loop per operator, so the row loop has no dispatch.
 */
function selectNumbers(
  op: ComparisonOp,
  values: Float64Array,
  nulls: Uint8Array | null,
  constant: number,
  sel: Uint32Array,
  n: number,
): number {
  if (Number.isNaN(constant)) return 0;
  let kept = 0;
  switch (op) {
    case '=':
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        if (values[row] === constant) sel[kept++] = row;
      }
      break;
    case '!=':
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        const value = values[row];
        if (value !== constant && value === value) sel[kept++] = row;
      }
      break;
    case '<':
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        if (values[row] < constant) sel[kept++] = row;
      }
      break;
    case '<=':
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        if (values[row] <= constant) sel[kept++] = row;
      }
      break;
    case '>':
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        if (values[row] > constant) sel[kept++] = row;
      }
      break;
    case '>=':
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        if (values[row] >= constant) sel[kept++] = row;
      }
      break;
  }
  if (nulls === null) return kept;
  // A null row holds 0 in `values`: drop the null rows that passed.
  let out = 0;
  for (let i = 0; i < kept; i++) {
    const row = sel[i];
    if (nulls[row] === 0) sel[out++] = row;
  }
  return out;
}

export function compileComparison(op: ComparisonOp, left: CompiledExpr, right: CompiledExpr): CompiledExpr {
  if (left.constant !== null && right.constant === null) return compileComparison(FLIPPED[op], right, left);
  const timed = left.type === 'time' || right.type === 'time';
  if (timed) {
    // Instants: a time against an ISO string or epoch seconds compares microseconds.
    const other = left.type === 'time' ? right : left;
    if (other.constant !== null && other.type !== 'time') {
      const micros = valueToTimeMicros(other.constant.value);
      const converted = constantExpr(Number.isNaN(micros) ? null : micros, 'time');
      return left.type === 'time' ? compileComparison(op, left, converted) : compileComparison(op, converted, right);
    }
    return booleanExpr([left, right], (batch, sel, n) => {
      const a = left.evaluate(batch, sel, n);
      const b = right.evaluate(batch, sel, n);
      const out = truthColumn(batch.rowCount);
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        const x = left.type === 'time' ? numberAt(a, row) : valueToTimeMicros(valueAt(a, row));
        const y = right.type === 'time' ? numberAt(b, row) : valueToTimeMicros(valueAt(b, row));
        setTruth(out, row, compareNumbers(op, x, y));
      }
      return out;
    });
  }
  if (right.constant !== null) {
    const constant = right.constant.value;
    const cache = new WeakMap<string[], Uint8Array>();
    const outcome = (value: Value): 0 | 1 | 2 => comparisonResult(op, compareValues(value, constant));
    const truthOf = (column: Column, rowCount: number, sel: Uint32Array, n: number): TruthColumn => {
      const out = truthColumn(rowCount);
      if (typeof constant === 'number' && (column.kind === 'number' || column.kind === 'time')) {
        const values = column.values;
        const nulls = column.kind === 'number' ? column.nulls : null;
        for (let i = 0; i < n; i++) {
          const row = sel[i];
          setTruth(out, row, nulls !== null && nulls[row] === 1 ? 2 : compareNumbers(op, values[row], constant));
        }
      } else perValue(column, sel, n, out, cache, outcome);
      return out;
    };
    const expr = booleanExpr(
      [left],
      (batch, sel, n) => truthOf(left.evaluate(batch, sel, n), batch.rowCount, sel, n),
      (batch, sel, n) => {
        const column = left.evaluate(batch, sel, n);
        if (typeof constant === 'number') {
          if (column.kind === 'number') return selectNumbers(op, column.values, column.nulls, constant, sel, n);
          if (column.kind === 'time') return selectNumbers(op, column.values, null, constant, sel, n);
        }
        if (column.kind === 'dict') return selectByTable(dictTable(cache, column.dict, outcome), column.codes, sel, n);
        return filterTrue(truthOf(column, batch.rowCount, sel, n), sel, n);
      },
    );
    if (left.field === undefined || typeof constant !== 'number') return expr;
    return { ...expr, numberComparison: { field: left.field, op, constant } };
  }
  return booleanExpr([left, right], (batch, sel, n) => {
    const a = left.evaluate(batch, sel, n);
    const b = right.evaluate(batch, sel, n);
    const out = truthColumn(batch.rowCount);
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      setTruth(out, row, comparisonResult(op, compareValues(valueAt(a, row), valueAt(b, row))));
    }
    return out;
  });
}

/** `x in (...)`: equality with any list member (numbers match numeric strings). */
export function compileIn(operand: CompiledExpr, list: CompiledExpr[], negated: boolean): CompiledExpr {
  if (list.every((item) => item.constant !== null)) {
    const strings = new Set<string>();
    const numbers = new Set<number>();
    const booleans = new Set<boolean>();
    for (const item of list) {
      const value = (item.constant as { value: Value }).value;
      if (typeof value === 'string') {
        strings.add(value);
        const number = valueToNumber(value);
        if (!Number.isNaN(number)) numbers.add(number);
      } else if (typeof value === 'number') numbers.add(value);
      else if (typeof value === 'boolean') booleans.add(value);
    }
    const hit = negated ? 0 : 1;
    const miss = negated ? 1 : 0;
    const outcome = (value: Value): 0 | 1 | 2 => {
      if (value === null) return 2;
      if (typeof value === 'string') return strings.has(value) || numbers.has(valueToNumber(value)) ? hit : miss;
      if (typeof value === 'number') return numbers.has(value) ? hit : miss;
      return booleans.has(value) ? hit : miss;
    };
    const cache = new WeakMap<string[], Uint8Array>();
    return booleanExpr([operand], (batch, sel, n) => {
      const column = operand.evaluate(batch, sel, n);
      const out = truthColumn(batch.rowCount);
      if (column.kind === 'number') {
        for (let i = 0; i < n; i++) {
          const row = sel[i];
          setTruth(out, row, column.nulls !== null && column.nulls[row] === 1 ? 2 : numbers.has(column.values[row]) ? hit : miss);
        }
      } else perValue(column, sel, n, out, cache, outcome);
      return out;
    });
  }
  return booleanExpr([operand, ...list], (batch, sel, n) => {
    const column = operand.evaluate(batch, sel, n);
    const items = list.map((item) => item.evaluate(batch, sel, n));
    const out = truthColumn(batch.rowCount);
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      const value = valueAt(column, row);
      let result: 0 | 1 | 2 = value === null ? 2 : 0;
      if (value !== null) {
        for (const item of items) if (compareValues(value, valueAt(item, row)) === 0) result = 1;
      }
      setTruth(out, row, result === 2 ? 2 : negated ? (result === 1 ? 0 : 1) : result);
    }
    return out;
  });
}

/** Applies a text matcher to string values (non-strings are tested as their text; null stays null). */
function compileTextTest(operand: CompiledExpr, matcher: TextMatcher, negated: boolean): CompiledExpr {
  const hit = negated ? 0 : 1;
  const miss = negated ? 1 : 0;
  const cache = new WeakMap<string[], Uint8Array>();
  return booleanExpr([operand], (batch, sel, n) => {
    const column = operand.evaluate(batch, sel, n);
    const out = truthColumn(batch.rowCount);
    if (column.kind === 'string') {
      const values = column.values;
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        const text = values[row];
        setTruth(out, row, text === null ? 2 : matcher.test(text) ? hit : miss);
      }
      return out;
    }
    perValue(column, sel, n, out, cache, (value) =>
      value === null ? 2 : matcher.test(typeof value === 'string' ? value : String(value)) ? hit : miss,
    );
    return out;
  });
}

function constantText(expr: CompiledExpr, what: string): string {
  if (expr.constant === null || typeof expr.constant.value !== 'string') {
    throw new TypeError(`${what} must be a string literal`);
  }
  return expr.constant.value;
}

export function compileLike(operand: CompiledExpr, pattern: CompiledExpr, negated: boolean): CompiledExpr {
  return compileTextTest(operand, likeMatcher(constantText(pattern, 'the like pattern')), negated);
}

export function compileHas(operand: CompiledExpr, term: CompiledExpr, negated: boolean): CompiledExpr {
  return compileTextTest(operand, literalMatcher(constantText(term, 'the has term')), negated);
}

export function compileRegex(operand: CompiledExpr, pattern: string, negated: boolean): CompiledExpr {
  return compileTextTest(operand, regexMatcher(pattern), negated);
}
