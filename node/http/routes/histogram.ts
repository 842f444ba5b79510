/**
 * `GET /histogram` (docs/api.md): event counts per interval over a time range, for a timeline
 * above search results. The counts come from one `stats count() by bin(_time, ...)` query, so a
 * cluster answers for every node, and says `meta.partial` as a query would.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  errorInFilter,
  filterStageNames,
  histogramBucketCount,
  histogramBuckets,
  histogramFilter,
  histogramInterval,
  histogramQueryText,
  MAX_LISTED_BUCKETS,
  nonFilterStage,
} from '../../../coordinator/histogram';
import type { Query } from '../../../query/stages';
import { QueryError } from '../../../query/syntax';
import type { App } from '../../app/app';
import { checkQueryLength, invalidQuery, jobFailure, validationError } from '../../core/errors';
import { parseTimeBound } from '../../core/time-bound';
import { launchQuery } from './query/launch';

/** The most buckets one answer asks for; a chart has no use for more. */
export const MAX_HISTOGRAM_BUCKETS = 1000;
export const DEFAULT_HISTOGRAM_BUCKETS = 60;

interface HistogramParams {
  q?: string;
  from?: string;
  to?: string;
  buckets?: number;
}

const HISTOGRAM_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    q: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    buckets: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_HISTOGRAM_BUCKETS,
      description: `must be an integer from 1 to ${MAX_HISTOGRAM_BUCKETS}`,
    },
  },
  additionalProperties: false,
} as const;

export function histogramRoutes(app: App): FastifyPluginAsync {
  const service = app.queries;

  const parseFilter = (q: string | undefined) => {
    const filter = histogramFilter(q);
    checkQueryLength(filter.text, app.settings.query.maxQueryLength);
    let query: Query;
    try {
      query = service.parse(filter.text, {});
    } catch (error) {
      if (error instanceof QueryError) throw invalidQuery(errorInFilter(error, filter));
      throw error;
    }
    const stage = nonFilterStage(query);
    if (stage !== null) {
      throw validationError(
        `q may only filter events (${filterStageNames().join(', ')}): a histogram counts them itself, so ${stage} is not accepted`,
      );
    }
    return filter;
  };

  return async (server) => {
    server.get<{ Querystring: HistogramParams }>('/histogram', { schema: { querystring: HISTOGRAM_QUERY_SCHEMA } }, async (request) => {
      const started = performance.now();
      const params = request.query;
      const nowMs = Date.now();
      if (params.from === undefined) throw validationError('from is required: where the histogram starts (relative or ISO 8601)');
      const fromMs = parseTimeBound('from', params.from, nowMs);
      const toMs = params.to === undefined ? nowMs : parseTimeBound('to', params.to, nowMs);
      if (fromMs >= toMs) throw validationError('from must be before to');
      const filter = parseFilter(params.q);
      const step = histogramInterval(toMs - fromMs, params.buckets ?? DEFAULT_HISTOGRAM_BUCKETS);
      const listed = histogramBucketCount(fromMs, toMs, step);
      if (listed > MAX_LISTED_BUCKETS) {
        throw validationError(
          `from and to span ${listed} buckets of ${step.label}; a histogram lists at most ${MAX_LISTED_BUCKETS}: narrow the range`,
        );
      }
      const text = histogramQueryText(filter.text, step);
      const span = { fromMicros: fromMs * 1000, toMicros: toMs * 1000, nowMicros: nowMs * 1000 };
      const counting = { text, variables: {}, ...span, limit: 0, offset: 0, profile: null };
      const { job } = launchQuery(service, counting, { unlimited: true });
      await job.finished;
      if (job.status !== 'done' || job.answer === null)
        throw jobFailure(job.error ?? { code: 'INTERNAL_ERROR', message: 'the histogram query failed' });
      const result = job.answer.data;
      const rows = result.type === 'aggregate' ? result.rows : [];
      const buckets = histogramBuckets(fromMs, toMs, step, rows);
      const meta: Record<string, unknown> = { took_ms: Math.round(performance.now() - started) };
      const { partial, missing_keys, missing } = job.answer.meta as { partial?: boolean; missing_keys?: number; missing?: unknown };
      if (partial === true) Object.assign(meta, { partial, missing_keys, missing });
      return { data: { interval: step.label, buckets, total: buckets.reduce((sum, bucket) => sum + bucket.count, 0) }, meta };
    });
  };
}
