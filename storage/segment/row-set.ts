/**
 * RowSet: the segment encoder's input. The write buffer builds it column by column as events
 * arrive; compaction rebuilds it from decoded segments (rowSetFromBatches).
 */
import type { ColumnBatch } from '../core/column';
import type { AsciiText } from './ascii-text';
import { valueAt } from '../core/column';
import type { FieldValue, LogEvent } from '../core/event';
import { RAW_COLUMN, TIME_COLUMN } from '../core/event';

/** One field's non-null values. `rows` ascending, each row at most once; `values[i]` is row `rows[i]`'s. */
export interface SparseColumn {
  rows: ArrayLike<number>;
  values: ArrayLike<FieldValue>;
}

/**
 * A string field as codes into its distinct values (a flush merges the chunks' dictionaries), so
 * that neither the flush nor the encoder needs a JS value per row: row `rows[i]` holds
 * `dict[codes[i]]`. `dict` holds no string twice; `dictBytes[c]` is entry c's UTF-8 length.
 */
export interface CodedColumn {
  rows: ArrayLike<number>;
  codes: Uint32Array;
  dict: readonly string[];
  dictBytes: Uint32Array;
}

export type RowSetColumn = SparseColumn | CodedColumn;

export function isCoded(column: RowSetColumn): column is CodedColumn {
  return (column as CodedColumn).codes !== undefined;
}

/** The value of a column's entry i. */
export function entryValue(column: RowSetColumn, i: number): FieldValue {
  return isCoded(column) ? column.dict[column.codes[i]] : column.values[i];
}

/** A SparseColumn being built by appending. */
interface GrowingColumn {
  rows: number[];
  values: FieldValue[];
}

/** `count` rows; `times` in microseconds, not necessarily sorted (the encoder sorts). */
export interface RowSet {
  count: number;
  times: ArrayLike<number>;
  /** `_raw` per row; empty when `rawText` holds it. */
  raws: ArrayLike<string>;
  /** `_raw` as ASCII bytes (a flush of ASCII text): the encoder copies and scans the bytes. */
  rawText?: AsciiText;
  fields: Map<string, RowSetColumn>;
}

/** A RowSet being built by appending. */
export interface GrowingRowSet {
  count: number;
  times: number[];
  raws: string[];
  fields: Map<string, GrowingColumn>;
}

export function emptyRowSet(): GrowingRowSet {
  return { count: 0, times: [], raws: [], fields: new Map() };
}

/** Appends one event (its `index` is not a row value: it is part of the segment key). */
export function appendEvent(set: GrowingRowSet, event: LogEvent): void {
  const row = set.count++;
  set.times.push(event.time);
  set.raws.push(event.raw);
  const fields = event.fields;
  for (const name in fields) {
    const v = fields[name] as FieldValue | null | undefined;
    if (v === null || v === undefined) continue;
    let col = set.fields.get(name);
    if (col === undefined) {
      col = { rows: [], values: [] };
      set.fields.set(name, col);
    }
    col.rows.push(row);
    col.values.push(v);
  }
}

export function rowSetFromEvents(events: readonly LogEvent[]): RowSet {
  const set = emptyRowSet();
  for (const e of events) appendEvent(set, e);
  return set;
}

/**
 * Concatenates decoded batches (each with `_time` and `_raw`; every other column becomes a
 * field) back into a RowSet, e.g. to merge segments in compaction. Decode only the stored
 * columns: a constant `index` column from a reader would become a field.
 */
export function rowSetFromBatches(batches: readonly ColumnBatch[]): RowSet {
  const set = emptyRowSet();
  for (const batch of batches) {
    const time = batch.columns.get(TIME_COLUMN);
    const raw = batch.columns.get(RAW_COLUMN);
    if (time === undefined || raw === undefined) throw new Error('rowSetFromBatches: batch lacks _time or _raw');
    const base = set.count;
    const n = batch.rowCount;
    for (let i = 0; i < n; i++) {
      const t = valueAt(time, i);
      if (typeof t !== 'number') throw new Error('rowSetFromBatches: _time is not a number');
      set.times.push(t);
      const r = valueAt(raw, i);
      set.raws.push(typeof r === 'string' ? r : r === null ? '' : String(r));
    }
    for (const [name, column] of batch.columns) {
      if (name === TIME_COLUMN || name === RAW_COLUMN) continue;
      if (column.kind === 'const' && column.value === null) continue;
      let col = set.fields.get(name);
      for (let i = 0; i < n; i++) {
        const v = valueAt(column, i);
        if (v === null) continue;
        if (col === undefined) {
          col = { rows: [], values: [] };
          set.fields.set(name, col);
        }
        col.rows.push(base + i);
        col.values.push(v);
      }
    }
    set.count += n;
  }
  return set;
}
