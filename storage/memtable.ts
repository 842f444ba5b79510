/**
 * The write buffer's in-memory side: acknowledged events not yet in segments, kept per partition
 * key in append-only columnar arrays so that readers see them at once (a reader fixes `count` when
 * it starts, which makes a stable snapshot) and the flusher hands them to the segment encoder
 * without a copy.
 */
import type { ColumnBatch, Column } from './column';
import { columnFromValues } from './column-build';
import type { FieldValue, LogEvent } from './event';
import { INDEX_COLUMN, RAW_COLUMN, TIME_COLUMN } from './event';
import type { PartitionKey } from './partition';
import type { RowSet, SparseColumn } from './segment/row-set';

export class MemTable {
  count = 0;
  minTime = Number.POSITIVE_INFINITY;
  maxTime = Number.NEGATIVE_INFINITY;
  /** Sum of `_raw` lengths in UTF-16 units (a cheap stand-in for bytes, for memory accounting). */
  rawChars = 0;
  readonly times: number[] = [];
  readonly raws: string[] = [];
  readonly fields = new Map<string, SparseColumn>();
  /** Field names and columns of the previous event, in its key order: events of one source share a shape. */
  private shapeNames: string[] = [];
  private shapeColumns: SparseColumn[] = [];

  constructor(readonly key: PartitionKey) {}

  append(event: LogEvent): void {
    const row = this.count;
    this.times.push(event.time);
    this.raws.push(event.raw);
    this.rawChars += event.raw.length;
    if (event.time < this.minTime) this.minTime = event.time;
    if (event.time > this.maxTime) this.maxTime = event.time;
    const fields = event.fields;
    const names = this.shapeNames;
    const columns = this.shapeColumns;
    let position = 0;
    for (const name in fields) {
      const value = fields[name];
      if (value === undefined || value === null) continue;
      let column: SparseColumn | undefined;
      if (names[position] === name) column = columns[position];
      else {
        // Parsers never emit reserved names; refusing them here keeps one bad event from failing a flush.
        if (name === TIME_COLUMN || name === RAW_COLUMN || name === INDEX_COLUMN) continue;
        column = this.fields.get(name);
        if (column === undefined) {
          column = { rows: [], values: [] };
          this.fields.set(name, column);
        }
        names[position] = name;
        columns[position] = column;
      }
      position++;
      column.rows.push(row);
      column.values.push(value);
    }
    this.count = row + 1;
  }

  /** The rows as the segment encoder's input (shares the arrays; the table must not change after). */
  toRowSet(): RowSet {
    return { count: this.count, times: this.times, raws: this.raws, fields: this.fields };
  }

  fieldNames(): string[] {
    return [...this.fields.keys()];
  }

  /**
   * The first `rows` rows as a column batch with the requested columns (null = all).
   * `index` is a constant column; absent fields are all-null constants.
   */
  readBatch(rows: number, columns: readonly string[] | null): ColumnBatch {
    const names = columns ?? [TIME_COLUMN, RAW_COLUMN, INDEX_COLUMN, ...this.fields.keys()];
    const out = new Map<string, Column>();
    for (const name of names) out.set(name, this.readColumn(name, rows));
    return { rowCount: rows, columns: out };
  }

  private readColumn(name: string, rows: number): Column {
    if (name === TIME_COLUMN) return { kind: 'time', values: Float64Array.from(this.times.slice(0, rows)) };
    if (name === RAW_COLUMN) return { kind: 'string', values: this.raws.slice(0, rows) };
    if (name === INDEX_COLUMN) return { kind: 'const', value: this.key.index, length: rows };
    const sparse = this.fields.get(name);
    if (sparse === undefined) return { kind: 'const', value: null, length: rows };
    const dense = new Array<FieldValue | null>(rows).fill(null);
    const sparseRows = sparse.rows;
    for (let i = 0; i < sparseRows.length; i++) {
      const row = sparseRows[i];
      if (row >= rows) break;
      dense[row] = sparse.values[i];
    }
    return columnFromValues(dense);
  }
}
