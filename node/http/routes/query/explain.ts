/** `GET /query/explain`: whether a query is valid, and its plan; a bad query is an answer here, not an error. */
import type { FastifyInstance } from 'fastify';
import { queryErrorFields } from '../../../core/errors';
import { parseTimeBound } from '../../../core/time-bound';
import type { QueryRoutesContext } from './context';

const EXPLAIN_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    q: { type: 'string' },
    query: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    analyze: { type: 'string' },
    language: { type: 'string' },
  },
  additionalProperties: false,
} as const;

export function explainQueryRoute(server: FastifyInstance, { service }: QueryRoutesContext): void {
  server.get<{ Querystring: Record<string, string | undefined> }>(
    '/query/explain',
    { schema: { querystring: EXPLAIN_QUERY_SCHEMA } },
    async (request) => {
      const q = request.query.q ?? request.query.query;
      const language = request.query.language;
      if (language !== undefined && language !== '' && language !== 'native') {
        return {
          data: { is_valid: false, errors: [{ message: `language "${language}" is not supported: only native` }] },
          meta: { language: 'native' },
        };
      }
      if (q === undefined || q.trim() === '') {
        return {
          data: { is_valid: false, errors: [{ message: 'q (or query) is required: the query text' }] },
          meta: { language: 'native' },
        };
      }
      const now = Date.now();
      let fromMicros = 0;
      let toMicros = now * 1000;
      try {
        if (request.query.from !== undefined) fromMicros = parseTimeBound('from', request.query.from, now) * 1000;
        if (request.query.to !== undefined) toMicros = parseTimeBound('to', request.query.to, now) * 1000;
      } catch (error) {
        return { data: { is_valid: false, errors: [{ message: (error as Error).message }] }, meta: { language: 'native' } };
      }
      const result = service.explain(q, {}, fromMicros, toMicros);
      if (!result.ok) {
        return {
          data: {
            is_valid: false,
            errors: result.errors.map((error) => ({ message: error.message, ...queryErrorFields(error) })),
          },
          meta: { language: 'native' },
        };
      }
      return { data: { is_valid: true, native_plan: result.plan, errors: [] }, meta: { language: 'native' } };
    },
  );
}
