/** `GET /sources` (docs/api.md): each source's event count, first and last event, rate and stored bytes. */
import type { FastifyInstance } from 'fastify';
import { sourceDescriptors } from '../../../../coordinator/discovery-descriptors';
import type { App } from '../../../app/app';
import { catalogAnswer, discoveryRange } from './catalog-answer';

interface SourcesParams {
  from?: string;
  to?: string;
}

const SOURCES_QUERY_SCHEMA = {
  type: 'object',
  properties: { from: { type: 'string' }, to: { type: 'string' } },
  additionalProperties: false,
} as const;

export function sourcesRoute(server: FastifyInstance, app: App): void {
  server.get<{ Querystring: SourcesParams }>('/sources', { schema: { querystring: SOURCES_QUERY_SCHEMA } }, async (request) => {
    const started = performance.now();
    const range = discoveryRange(request.query, Date.now());
    // Sources only: no field passes a prefix no name can start with.
    const answer = await catalogAnswer(app, range, '\u0000', null);
    return {
      data: { sources: sourceDescriptors(answer.part) },
      meta: { took_ms: Math.round(performance.now() - started), ...answer.meta },
    };
  });
}
