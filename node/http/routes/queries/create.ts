/** `POST /queries`: saves a query; 201 with the record, its id and times set by the server. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import {
  checkSavedQueryLength,
  SAVED_QUERY_COLLECTION,
  JSON_BODY,
  SAVED_QUERY_BODY_SCHEMA,
  writeSavedQuery,
  type SavedQueryBody,
} from './saved-queries';

export function createSavedQueryRoute(server: FastifyInstance, app: App): void {
  server.post<{ Body: SavedQueryBody }>(
    '/queries',
    { schema: { body: SAVED_QUERY_BODY_SCHEMA }, config: JSON_BODY },
    async (request, reply) => {
      checkSavedQueryLength(app, request.body.q);
      const record = await writeSavedQuery(app, request, { collection: SAVED_QUERY_COLLECTION, op: 'create', record: { ...request.body } });
      return reply.status(201).send({ data: record });
    },
  );
}
