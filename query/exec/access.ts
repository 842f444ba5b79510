/**
 * Allocation-free reads of one row of a column, in the shapes the evaluator needs: the value,
 * the value as a number (NaN when null or not numeric), the value as a string.
 */
import type { Column, DictColumn } from '../../storage/core/column';
import { valueAt } from '../../storage/core/column';
import type { Value } from '../value';

export { valueAt };

/** Numeric readings of dictionary entries, computed once per decoded block. */
const dictNumbers = new WeakMap<DictColumn, Float64Array>();

export function dictAsNumbers(column: DictColumn): Float64Array {
  let numbers = dictNumbers.get(column);
  if (numbers === undefined) {
    numbers = new Float64Array(column.dict.length);
    numbers[0] = NaN;
    for (let i = 1; i < column.dict.length; i++) numbers[i] = stringToNumber(column.dict[i]);
    dictNumbers.set(column, numbers);
  }
  return numbers;
}

/** A string that reads as a number (`"500"`, `" 2.5 "`), else NaN. Empty text is not a number. */
export function stringToNumber(text: string): number {
  if (text.length === 0) return NaN;
  const first = text.charCodeAt(0);
  // Fast reject: numbers start with a digit, sign, dot or whitespace.
  if (!((first >= 48 && first <= 57) || first === 45 || first === 43 || first === 46 || first === 32 || first === 9)) return NaN;
  const number = Number(text);
  return text.trim().length === 0 ? NaN : number;
}

/** The number a value reads as (numbers, numeric strings), else NaN. Booleans are not numbers. */
export function valueToNumber(value: Value): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return stringToNumber(value);
  return NaN;
}

/** Row value as a number, NaN when null or not numeric. */
export function numberAt(column: Column, row: number): number {
  switch (column.kind) {
    case 'time':
      return column.values[row];
    case 'number':
      return column.nulls !== null && column.nulls[row] === 1 ? NaN : column.values[row];
    case 'dict':
      return dictAsNumbers(column)[column.codes[row]];
    case 'boolean':
      return NaN;
    case 'string':
    case 'mixed':
      return valueToNumber(column.values[row]);
    case 'const':
      return valueToNumber(column.value);
  }
}

/** Row value as a string when it is one (no conversion), else null. */
export function stringAt(column: Column, row: number): string | null {
  switch (column.kind) {
    case 'dict': {
      const code = column.codes[row];
      return code === 0 ? null : column.dict[code];
    }
    case 'string':
      return column.values[row];
    case 'mixed': {
      const value = column.values[row];
      return typeof value === 'string' ? value : null;
    }
    case 'const':
      return typeof column.value === 'string' ? column.value : null;
    default:
      return null;
  }
}

export function isNullAt(column: Column, row: number): boolean {
  switch (column.kind) {
    case 'time':
      return Number.isNaN(column.values[row]);
    case 'number':
    case 'boolean':
      return column.nulls !== null && column.nulls[row] === 1;
    case 'dict':
      return column.codes[row] === 0;
    case 'string':
    case 'mixed':
      return column.values[row] === null;
    case 'const':
      return column.value === null;
  }
}
