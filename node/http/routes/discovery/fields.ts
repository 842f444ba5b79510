/** `GET /fields` (docs/api.md): every field in a time range with its type, coverage and statistics, from segment headers and the write buffer. */
import type { FastifyInstance } from 'fastify';
import { fieldDescriptors } from '../../../../coordinator/discovery-descriptors';
import type { App } from '../../../app/app';
import { catalogAnswer, discoveryRange } from './catalog-answer';

interface FieldsParams {
  from?: string;
  to?: string;
  prefix?: string;
  source?: string;
}

const FIELDS_QUERY_SCHEMA = {
  type: 'object',
  properties: { from: { type: 'string' }, to: { type: 'string' }, prefix: { type: 'string' }, source: { type: 'string' } },
  additionalProperties: false,
} as const;

export function fieldsRoute(server: FastifyInstance, app: App): void {
  server.get<{ Querystring: FieldsParams }>('/fields', { schema: { querystring: FIELDS_QUERY_SCHEMA } }, async (request) => {
    const started = performance.now();
    const params = request.query;
    const range = discoveryRange(params, Date.now());
    const prefix = params.prefix ?? '';
    const answer = await catalogAnswer(app, range, prefix, params.source ?? null);
    const fields = fieldDescriptors(answer.part, prefix);
    return { data: { fields }, meta: { took_ms: Math.round(performance.now() - started), ...answer.meta } };
  });
}
