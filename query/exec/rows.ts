/**
 * Rows: the materialized form for output and for stages that need all input (sort, tail, dedup).
 * A row keeps times as microseconds; they become ISO 8601 text only in the final answer.
 */
import type { Column } from '../../storage/core/column';
import { columnFromValues } from '../../storage/core/column-build';
import type { StaticType, Value } from '../value';
import { formatTime } from '../value';
import { valueAt } from './access';
import type { CompiledExpr } from './compiled';
import { compareForSort } from './stats';
import { fullSelection, type Batch } from './vectors';

export type Row = Record<string, Value>;

/** An event row with the time used for the default newest-first order. */
export interface TimedRow {
  time: number;
  row: Row;
}

/** Approximate bytes of a row, for the per-query memory budget. */
export function rowBytes(row: Row): number {
  let bytes = 64;
  for (const name in row) {
    const value = row[name];
    bytes += 16 + name.length * 2 + (typeof value === 'string' ? value.length * 2 : 8);
  }
  return bytes;
}

/** One selected row of a batch as an object; nulls are left out unless `keepNulls`. */
export function materialize(batch: Batch, row: number, keepNulls: boolean): Row {
  const out: Row = {};
  for (const [name, column] of batch.columns) {
    const value = valueAt(column, row);
    if (value !== null || keepNulls) out[name] = value;
  }
  return out;
}

/** The columns of a set of rows, in first-seen order, as a batch the operators can run on. */
export function rowsToBatch(rows: readonly Row[]): Batch {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const name in row) {
      if (!seen.has(name)) {
        seen.add(name);
        names.push(name);
      }
    }
  }
  const columns = new Map<string, Column>();
  for (const name of names) {
    const values = rows.map((row) => (name in row ? row[name] : null));
    columns.set(
      name,
      name === '_time' && values.every((value) => typeof value === 'number')
        ? { kind: 'time', values: Float64Array.from(values as number[]) }
        : columnFromValues(values),
    );
  }
  return { rowCount: rows.length, columns };
}

/** Rows of a batch after an operator ran on it: the selected rows, in selection order. */
export function batchToRows(batch: Batch, sel: Uint32Array, n: number, keepNulls: boolean): Row[] {
  const out: Row[] = new Array<Row>(n);
  for (let i = 0; i < n; i++) out[i] = materialize(batch, sel[i], keepNulls);
  return out;
}

/** Evaluates expressions over rows (for sort keys): one value array per expression. */
export function evaluateOverRows(rows: readonly Row[], exprs: CompiledExpr[]): Value[][] {
  const batch = rowsToBatch(rows);
  const sel = fullSelection(rows.length);
  return exprs.map((expr) => {
    const column = expr.evaluate(batch, sel, rows.length);
    return rows.map((_, row) => valueAt(column, row));
  });
}

/**
 * The sort order of two rows' key values: nulls last in both directions, then compareForSort
 * (numbers and numeric strings numerically, before other values), reversed for `desc`.
 */
export function compareSortKeys(directions: readonly ('asc' | 'desc')[], a: readonly Value[], b: readonly Value[]): number {
  for (let k = 0; k < directions.length; k++) {
    const x = a[k];
    const y = b[k];
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? 1 : -1;
    }
    const cmp = compareForSort(x, y);
    if (cmp !== 0) return directions[k] === 'desc' ? -cmp : cmp;
  }
  return 0;
}

/** A stable sort by the keys: rows that tie keep their order. */
export function sortRows(rows: Row[], keys: { expr: CompiledExpr; direction: 'asc' | 'desc' }[]): Row[] {
  const values = evaluateOverRows(
    rows,
    keys.map((key) => key.expr),
  );
  const directions = keys.map((key) => key.direction);
  const keyed = rows.map((_, i) => values.map((column) => column[i]));
  const order = rows.map((_, i) => i);
  order.sort((a, b) => compareSortKeys(directions, keyed[a], keyed[b]) || a - b);
  return order.map((i) => rows[i]);
}

export function dedupRows(rows: Row[], fields: string[]): Row[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = JSON.stringify(fields.map((field) => (field in row ? row[field] : null)));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Formats time-typed values as ISO 8601 for the answer. */
export function formatRow(row: Row, types: ReadonlyMap<string, StaticType>): Row {
  const out: Row = {};
  for (const name in row) {
    const value = row[name];
    out[name] = types.get(name) === 'time' && typeof value === 'number' ? formatTime(value) : value;
  }
  return out;
}
