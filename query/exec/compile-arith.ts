/**
 * Arithmetic: `+ - * / %` on numbers (numeric strings count as numbers), `+` concatenates when
 * either side is a string, null in gives null out, division by zero gives null. Time arithmetic:
 * time ± duration literal (microseconds) or ± number (seconds) is a time; time - time is seconds.
 */
import type { Column } from '../../storage/core/column';
import type { ArithmeticOp } from '../syntax/ast';
import type { StaticType, Value } from '../value';
import { numberAt, valueAt, valueToNumber } from './access';
import type { CompiledExpr } from './compiled';
import { unionFields } from './compiled';
import { numberColumn } from './vectors';

function applyNumbers(op: ArithmeticOp, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return b === 0 ? NaN : a / b;
    case '%':
      return b === 0 ? NaN : a % b;
  }
}

function resultType(op: ArithmeticOp, left: CompiledExpr, right: CompiledExpr): StaticType {
  if (left.type === 'time' && right.type === 'time') return op === '-' ? 'number' : 'any';
  if ((left.type === 'time' || right.type === 'time') && (op === '+' || op === '-')) return 'time';
  if (op === '+' && (left.type === 'string' || right.type === 'string')) return 'string';
  if (left.type === 'number' && right.type === 'number') return 'number';
  return 'any';
}

/** Microseconds to add to a time for the other operand: durations are micros, numbers seconds. */
function timeOffsetScale(expr: CompiledExpr): number {
  return expr.duration ? 1 : 1_000_000;
}

function numericResult(rowCount: number, sel: Uint32Array, n: number, compute: (row: number) => number): Column {
  const out = numberColumn(rowCount);
  let allIntegers = true;
  for (let i = 0; i < n; i++) {
    const row = sel[i];
    const value = compute(row);
    if (Number.isNaN(value) || !Number.isFinite(value)) out.nulls[row] = 1;
    else {
      out.values[row] = value;
      if (allIntegers && !Number.isInteger(value)) allIntegers = false;
    }
  }
  out.allIntegers = allIntegers;
  return out;
}

export function compileArithmetic(op: ArithmeticOp, left: CompiledExpr, right: CompiledExpr): CompiledExpr {
  const type = resultType(op, left, right);
  const fields = unionFields(left, right);
  if (left.type === 'time' || right.type === 'time') {
    const bothTimes = left.type === 'time' && right.type === 'time';
    const leftScale = left.type === 'time' ? 1 : timeOffsetScale(left);
    const rightScale = right.type === 'time' ? 1 : timeOffsetScale(right);
    return {
      type,
      duration: false,
      constant: null,
      fields,
      evaluate(batch, sel, n) {
        const a = left.evaluate(batch, sel, n);
        const b = right.evaluate(batch, sel, n);
        return numericResult(batch.rowCount, sel, n, (row) => {
          const x = numberAt(a, row) * leftScale;
          const y = numberAt(b, row) * rightScale;
          const result = applyNumbers(op, x, y);
          return bothTimes && op === '-' ? result / 1_000_000 : result;
        });
      },
    };
  }
  const numeric = type === 'number' || op !== '+';
  return {
    type,
    duration: left.duration && right.duration,
    constant: null,
    fields,
    evaluate(batch, sel, n) {
      const a = left.evaluate(batch, sel, n);
      const b = right.evaluate(batch, sel, n);
      if (numeric) return numericResult(batch.rowCount, sel, n, (row) => applyNumbers(op, numberAt(a, row), numberAt(b, row)));
      // `+` with strings possible: decide per row.
      const values: Value[] = new Array<Value>(batch.rowCount).fill(null);
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        const x = valueAt(a, row);
        const y = valueAt(b, row);
        if (x === null || y === null) continue;
        if (typeof x === 'string' || typeof y === 'string') values[row] = `${String(x)}${String(y)}`;
        else {
          const result = applyNumbers(op, valueToNumber(x), valueToNumber(y));
          values[row] = Number.isFinite(result) ? result : null;
        }
      }
      return { kind: 'mixed', values };
    },
  };
}

export function compileNegate(operand: CompiledExpr): CompiledExpr {
  return {
    type: operand.type === 'number' ? 'number' : 'any',
    duration: operand.duration,
    constant: null,
    fields: operand.fields,
    evaluate(batch, sel, n) {
      const input = operand.evaluate(batch, sel, n);
      return numericResult(batch.rowCount, sel, n, (row) => -numberAt(input, row));
    },
  };
}
