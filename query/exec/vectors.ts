/**
 * Builders for computed columns. A computed column is sized to the batch's row count and is
 * meaningful only at the selected rows; nothing is allocated per row.
 */
import type { BooleanColumn, Column, ColumnBatch, NumberColumn } from '../../storage/core/column';
import type { Value } from '../value';

export type Batch = ColumnBatch;

/** Three-valued truth per row: 1 true, 0 false, 2 unknown (null). */
export interface TruthColumn extends BooleanColumn {
  nulls: Uint8Array;
}

export function truthColumn(rowCount: number): TruthColumn {
  return { kind: 'boolean', values: new Uint8Array(rowCount), nulls: new Uint8Array(rowCount) };
}

/** Sets row `row` of a truth column from a 0/1/2 outcome. */
export function setTruth(column: TruthColumn, row: number, outcome: 0 | 1 | 2): void {
  if (outcome === 2) {
    column.values[row] = 0;
    column.nulls[row] = 1;
  } else {
    column.values[row] = outcome;
    column.nulls[row] = 0;
  }
}

/** Row outcome of a boolean-like column: 1 true, 0 false, 2 null or not a boolean. */
export function truthAt(column: Column, row: number): 0 | 1 | 2 {
  switch (column.kind) {
    case 'boolean':
      if (column.nulls !== null && column.nulls[row] === 1) return 2;
      return column.values[row] === 1 ? 1 : 0;
    case 'const':
      return column.value === true ? 1 : column.value === false ? 0 : 2;
    case 'mixed': {
      const value = column.values[row];
      return value === true ? 1 : value === false ? 0 : 2;
    }
    default:
      return 2;
  }
}

export function numberColumn(rowCount: number): NumberColumn & { nulls: Uint8Array } {
  return { kind: 'number', values: new Float64Array(rowCount), nulls: new Uint8Array(rowCount), allIntegers: false };
}

export function constColumn(value: Value, length: number): Column {
  return { kind: 'const', value, length };
}

/** A column of arbitrary values (strings, mixed): one array per batch. */
export function valuesColumn(values: Value[]): Column {
  return { kind: 'mixed', values };
}

/** Narrows a selection to the rows where the truth column is 1; returns the new count. */
export function filterTrue(truth: Column, sel: Uint32Array, n: number): number {
  let kept = 0;
  if (truth.kind === 'boolean') {
    const values = truth.values;
    const nulls = truth.nulls;
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      if (values[row] === 1 && (nulls === null || nulls[row] === 0)) sel[kept++] = row;
    }
    return kept;
  }
  for (let i = 0; i < n; i++) {
    const row = sel[i];
    if (truthAt(truth, row) === 1) sel[kept++] = row;
  }
  return kept;
}

/** The identity selection [0, rowCount). */
export function fullSelection(rowCount: number): Uint32Array {
  const sel = new Uint32Array(rowCount);
  for (let i = 0; i < rowCount; i++) sel[i] = i;
  return sel;
}

/**
 * Identity selections from reused memory: a session processes one block at a time and the
 * filters narrow the selection in place, so each block gets a fresh copy of [0, n) without a
 * new allocation and a fill loop.
 */
export class SelectionScratch {
  private identity: Uint32Array = new Uint32Array(0);
  private work: Uint32Array = new Uint32Array(0);

  /** [0, n), valid until the next call. */
  take(n: number): Uint32Array {
    if (this.identity.length < n) {
      this.identity = fullSelection(Math.max(n, this.identity.length * 2));
      this.work = new Uint32Array(this.identity.length);
    }
    this.work.set(this.identity.subarray(0, n));
    return this.work.subarray(0, n);
  }
}
