/**
 * The search page's query. One whose stages only keep or drop events is sent with `| head <limit>`
 * added: the newest `limit` events are the same rows, and the server stops reading once it has
 * them instead of counting every match in the range (the histogram counts those), which keeps the
 * first screen fast over millions of events.
 */
import { ApiError, json } from './api';
import { histogramFilter } from './query-text';
import type { TimeRange } from './time-range';

export type QueryResult =
  | { type: 'events'; events: Record<string, unknown>[]; total: number; has_more: boolean }
  | { type: 'aggregate'; columns: string[]; rows: unknown[][]; total_rows: number; has_more: boolean };

export interface SearchAnswer {
  result: QueryResult;
  /** `| head <limit>` was added: at `limit` events, more may match. */
  headed: boolean;
}

export async function runSearch(q: string, range: TimeRange, limit: number, signal: AbortSignal): Promise<SearchAnswer> {
  const post = (text: string) => json<QueryResult>('/query', 'POST', { q: text, from: range.from, to: range.to, limit }, signal);
  if (histogramFilter(q) !== q.trim()) return { result: await post(q), headed: false };
  try {
    return { result: await post(`${q}\n| head ${limit}`), headed: true };
  } catch (error) {
    // A parse error in the added line is the query's own (`where status >` wants a value): asked as
    // written, the server places it in the person's text.
    const position = error instanceof ApiError ? error.position : null;
    if (position !== null && position.line > q.split('\n').length) return { result: await post(q), headed: false };
    throw error;
  }
}
