/** `GET /queries`: every saved query. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { SAVED_QUERY_COLLECTION } from './saved-queries';

const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;

export function listSavedQueriesRoute(server: FastifyInstance, app: App): void {
  server.get('/queries', { schema: { querystring: NO_PARAMETERS } }, async () => {
    return { data: { queries: app.metadata.list(SAVED_QUERY_COLLECTION) } };
  });
}
