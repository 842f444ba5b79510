/** Cutting decoded row blocks to a scan's time range: blocks are sorted by time, so the range is a slice. */
import type { Column } from '../core/column';
import { lowerBound } from '../core/sorted';

/** The rows of a block (sorted by time) inside the time range [fromMicros, toMicros): [start, end). */
export function timeSlice(
  times: Column | undefined,
  rows: number,
  range: { fromMicros: number; toMicros: number },
): { start: number; end: number } {
  if (times === undefined || times.kind !== 'time') return { start: 0, end: rows };
  return { start: lowerBound(times.values, range.fromMicros), end: lowerBound(times.values, range.toMicros) };
}

/** Restricts decoded columns to rows [start, end) (views for typed arrays). */
export function sliceColumns(columns: Map<string, Column>, rows: number, start: number, end: number): Map<string, Column> {
  if (start === 0 && end === rows) return columns;
  const out = new Map<string, Column>();
  for (const [name, column] of columns) out.set(name, sliceColumn(column, start, end));
  return out;
}

function sliceColumn(column: Column, start: number, end: number): Column {
  switch (column.kind) {
    case 'time':
      return { kind: 'time', values: column.values.subarray(start, end) };
    case 'number':
      return { ...column, values: column.values.subarray(start, end), nulls: column.nulls?.subarray(start, end) ?? null };
    case 'boolean':
      return { ...column, values: column.values.subarray(start, end), nulls: column.nulls?.subarray(start, end) ?? null };
    case 'dict':
      return { kind: 'dict', dict: column.dict, codes: column.codes.subarray(start, end) };
    case 'string':
      return { kind: 'string', values: column.values.slice(start, end) };
    case 'mixed':
      return { kind: 'mixed', values: column.values.slice(start, end) };
    case 'const':
      return { kind: 'const', value: column.value, length: end - start };
  }
}
