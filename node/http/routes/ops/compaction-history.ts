/** `GET /compaction/history`: the compactions since a time bound (`since`), at most `limit`. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { parseTimeBound } from '../../../core/time-bound';

const COMPACTION_HISTORY_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    since: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 10000 },
  },
  additionalProperties: false,
} as const;

export function compactionHistoryRoute(server: FastifyInstance, app: App): void {
  const history = { schema: { querystring: COMPACTION_HISTORY_QUERY_SCHEMA } };
  server.get<{ Querystring: { since?: string; limit?: number } }>('/compaction/history', history, async (request) => {
    const since = request.query.since === undefined ? 0 : parseTimeBound('since', request.query.since, Date.now());
    const limit = request.query.limit ?? 1000;
    const compactions = await app.engine.compactionHistory(since, limit);
    return { data: { compactions, total: compactions.length } };
  });
}
