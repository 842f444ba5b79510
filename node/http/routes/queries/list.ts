/** `GET /queries`: every saved query. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { NO_PARAMETERS } from '../metadata-records';
import { SAVED_QUERY_COLLECTION } from './saved-queries';

export function listSavedQueriesRoute(server: FastifyInstance, app: App): void {
  server.get('/queries', { schema: { querystring: NO_PARAMETERS } }, async () => {
    return { data: { queries: app.metadata.list(SAVED_QUERY_COLLECTION) } };
  });
}
