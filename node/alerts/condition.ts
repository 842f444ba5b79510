/**
 * When an alert's query result meets its condition (docs/api.md "Alerts"): an aggregate result
 * meets it when some row's first numeric column is non-zero (`stats count() as n | where n > 10`
 * gives no row or a row of zeros when all is well); an events result meets it when it holds an
 * event (`where level = "error"`).
 */
import type { QueryResultData } from '../../query/exec/result';

export interface Evaluation {
  met: boolean;
  /** The row that met the condition, or the first row, as an object of column -> value (`{{.result.*}}`). */
  result: Record<string, unknown>;
}

function firstNumeric(row: readonly unknown[]): number | null {
  for (const value of row) if (typeof value === 'number') return value;
  return null;
}

export function evaluateResult(data: QueryResultData): Evaluation {
  if (data.type === 'events') {
    const first = data.events[0];
    return { met: first !== undefined, result: { count: data.total, ...(first ?? {}) } };
  }
  const asObject = (row: readonly unknown[]) => Object.fromEntries(data.columns.map((column, i) => [column, row[i] ?? null]));
  const meeting = data.rows.find((row) => {
    const value = firstNumeric(row);
    return value !== null && value !== 0;
  });
  if (meeting !== undefined) return { met: true, result: asObject(meeting) };
  return { met: false, result: data.rows[0] === undefined ? {} : asObject(data.rows[0]) };
}
