/** `PUT /queries/{id}`: replaces a saved query's name, text and time bound. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import {
  checkSavedQueryLength,
  SAVED_QUERY_COLLECTION,
  ID_PARAMS,
  JSON_BODY,
  SAVED_QUERY_BODY_SCHEMA,
  writeSavedQuery,
  type SavedQueryBody,
} from './saved-queries';

export function replaceSavedQueryRoute(server: FastifyInstance, app: App): void {
  server.put<{ Params: { id: string }; Body: SavedQueryBody }>(
    '/queries/:id',
    { schema: { params: ID_PARAMS, body: SAVED_QUERY_BODY_SCHEMA }, config: JSON_BODY },
    async (request) => {
      checkSavedQueryLength(app, request.body.q);
      return {
        data: await writeSavedQuery(app, request, {
          collection: SAVED_QUERY_COLLECTION,
          op: 'replace',
          id: request.params.id,
          record: { ...request.body },
        }),
      };
    },
  );
}
