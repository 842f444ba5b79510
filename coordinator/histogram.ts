/**
 * The histogram of event counts over time (docs/api.md "GET /histogram"): the interval chosen for
 * the range, the query that counts per interval, and the buckets with the empty ones filled in.
 * The count runs as a query, so it is exact on one node and across a cluster alike.
 */
import { STAGE_NAMES, STREAMING_STAGES, type Query } from '../query/stages';
import { QueryError } from '../query/syntax';

/** The query a histogram filters with, and where the user's `q` starts in it (0 when it is whole). */
export interface HistogramFilter {
  text: string;
  prefixLength: number;
}

export interface HistogramInterval {
  /** As the answer names it: `1s`, `5m`, `1d`. */
  label: string;
  ms: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function interval(label: string, ms: number): HistogramInterval {
  return { label, ms };
}

/**
 * The interval for a range and a target bucket count. At the default 60 buckets it follows the
 * usual ladder (under 5 minutes 1s or 5s, to 1 hour 1m, to 6 hours 5m, to a day 15m, to a week 1h,
 * beyond 6h or 1d); another target scales the range first, so 120 buckets pick the interval 60
 * would for half the range.
 */
export function histogramInterval(rangeMs: number, buckets: number): HistogramInterval {
  const scaled = (rangeMs * 60) / buckets;
  if (scaled <= MINUTE) return interval('1s', SECOND);
  if (scaled < 5 * MINUTE) return interval('5s', 5 * SECOND);
  if (scaled <= HOUR) return interval('1m', MINUTE);
  if (scaled <= 6 * HOUR) return interval('5m', 5 * MINUTE);
  if (scaled <= DAY) return interval('15m', 15 * MINUTE);
  if (scaled <= 7 * DAY) return interval('1h', HOUR);
  if (scaled <= 15 * DAY) return interval('6h', 6 * HOUR);
  return interval('1d', DAY);
}

/** Stages that keep or drop events without counting them otherwise: a histogram's filter may use them. */
const FILTER_STAGES: ReadonlySet<string> = new Set([...STREAMING_STAGES].filter((kind) => kind !== 'head'));
const STAGE_START = new RegExp(`^\\s*(${STAGE_NAMES.filter((name) => name !== 'from').join('|')})\\b`, 'i');

/**
 * The query text whose events the histogram counts. `q` may be a whole pipeline (`from web |
 * where status >= 500`), stages to run over every index (`search timeout`), or a bare expression
 * (`status >= 500`, read as `where status >= 500`); absent, every event of every index.
 */
export function histogramFilter(q: string | undefined): HistogramFilter {
  if (q === undefined || q.trim() === '') return { text: 'from *', prefixLength: 0 };
  if (/^\s*from\b/i.test(q)) return { text: q, prefixLength: 0 };
  const prefix = STAGE_START.test(q) ? 'from * | ' : 'from * | where ';
  return { text: prefix + q, prefixLength: prefix.length };
}

/** A parse error of the wrapped filter, placed in the user's `q` (the wrapper is one line). */
export function errorInFilter(error: QueryError, filter: HistogramFilter): QueryError {
  if (filter.prefixLength === 0 || error.line !== 1 || error.offset < filter.prefixLength) return error;
  const pos = { line: 1, column: error.column - filter.prefixLength, offset: error.offset - filter.prefixLength };
  return new QueryError(error.code, error.message, pos, error.suggestion);
}

/** The first stage that would change what is counted (`head`, `stats`, ...), or null. */
export function nonFilterStage(query: Query): string | null {
  return query.stages.find((stage) => !FILTER_STAGES.has(stage.kind))?.kind ?? null;
}

/** The stages a histogram's filter may use after `from`, as messages list them. */
export function filterStageNames(): string[] {
  return [...FILTER_STAGES].filter((kind) => kind !== 'from');
}

/** The counting query: the filter, then a count per interval. */
export function histogramQueryText(filter: string, step: HistogramInterval): string {
  return `${filter} | stats count() by bin(_time, ${step.label})`;
}

export interface HistogramBucket {
  time: string;
  count: number;
}

/**
 * The most buckets an answer lists (the `1d` interval over about 270 years): each is listed, empty
 * ones too, so a longer range would be a list too long to build or send.
 */
export const MAX_LISTED_BUCKETS = 100_000;

/** How many buckets histogramBuckets lists for the range at `step`. */
export function histogramBucketCount(fromMs: number, toMs: number, step: HistogramInterval): number {
  const first = Math.floor(fromMs / step.ms) * step.ms;
  return Math.max(1, Math.ceil((toMs - first) / step.ms));
}

/**
 * Every bucket from the one holding `fromMs` to the one holding the last instant before `toMs`,
 * each at its UTC-aligned start, with the counts found (rows of `[bucket start, count]`).
 */
export function histogramBuckets(
  fromMs: number,
  toMs: number,
  step: HistogramInterval,
  rows: readonly (readonly unknown[])[],
): HistogramBucket[] {
  const counts = new Map<number, number>();
  for (const [time, count] of rows) {
    const start = typeof time === 'string' ? Date.parse(time) : Number(time);
    counts.set(start, (counts.get(start) ?? 0) + Number(count));
  }
  const buckets: HistogramBucket[] = [];
  const first = Math.floor(fromMs / step.ms) * step.ms;
  for (let start = first; start < Math.max(toMs, first + 1); start += step.ms) {
    buckets.push({ time: new Date(start).toISOString(), count: counts.get(start) ?? 0 });
  }
  return buckets;
}
