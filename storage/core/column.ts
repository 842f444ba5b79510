/**
 * Column vectors: the decoded, in-memory form of one column of one row block.
 *
 * The reader hands these to the query executor, which works on them with selection vectors and
 * allocates nothing per row. Each variant keeps values in typed arrays where the type allows.
 */
import type { FieldValue } from './event';

/** Event times in microseconds since the epoch (exact in a float64 up to year 2255). */
export interface TimeColumn {
  kind: 'time';
  values: Float64Array;
}

/** Numbers. `nulls[i] === 1` marks a null row (its value slot is 0). `allIntegers` is true when every non-null value is an integer. */
export interface NumberColumn {
  kind: 'number';
  values: Float64Array;
  nulls: Uint8Array | null;
  allIntegers: boolean;
}

/** Booleans as 0/1 bytes. */
export interface BooleanColumn {
  kind: 'boolean';
  values: Uint8Array;
  nulls: Uint8Array | null;
}

/**
 * Dictionary-encoded strings. Code 0 is null; `dict[0]` is an unused placeholder (''), so
 * `codes[i] === 0` is the vectorized null test and `dict[codes[i]]` the value otherwise.
 */
export interface DictColumn {
  kind: 'dict';
  dict: string[];
  codes: Uint8Array | Uint16Array | Uint32Array;
  /**
   * Set when the entries were interned (storage/segment/string-intern.ts): `ids[code]` is the
   * thread's entry id of `dict[code]` in interner epoch `epoch` (-1: not interned). Grouping keys
   * its tables by it instead of hashing the string.
   */
  interned?: { ids: Int32Array; epoch: number };
}

/** Plain strings (high cardinality, e.g. `_raw`). */
export interface StringColumn {
  kind: 'string';
  values: (string | null)[];
}

/** A column whose rows disagree in type: each value keeps its own (null for absent). */
export interface MixedColumn {
  kind: 'mixed';
  values: (FieldValue | null)[];
}

/** The same value (or null) in every row: absent columns, and `index`. */
export interface ConstColumn {
  kind: 'const';
  value: FieldValue | null;
  length: number;
}

export type Column = TimeColumn | NumberColumn | BooleanColumn | DictColumn | StringColumn | MixedColumn | ConstColumn;

/** Rows of one row block, column by column. Only the requested columns are present. */
export interface ColumnBatch {
  rowCount: number;
  columns: Map<string, Column>;
}

export function columnLength(column: Column): number {
  switch (column.kind) {
    case 'time':
    case 'number':
    case 'boolean':
      return column.values.length;
    case 'dict':
      return column.codes.length;
    case 'string':
    case 'mixed':
      return column.values.length;
    case 'const':
      return column.length;
  }
}

/** The value of one row, for output and tests (the executor reads the typed arrays directly). */
export function valueAt(column: Column, row: number): FieldValue | null {
  switch (column.kind) {
    case 'time':
      return column.values[row];
    case 'number':
      return column.nulls !== null && column.nulls[row] === 1 ? null : column.values[row];
    case 'boolean':
      return column.nulls !== null && column.nulls[row] === 1 ? null : column.values[row] === 1;
    case 'dict': {
      const code = column.codes[row];
      return code === 0 ? null : column.dict[code];
    }
    case 'string':
    case 'mixed':
      return column.values[row];
    case 'const':
      return column.value;
  }
}
