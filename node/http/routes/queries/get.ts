/** `GET /queries/{id}`: one saved query. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { SAVED_QUERIES } from '../../../metadata/collections';
import { ID_PARAMS, storedRecord } from '../metadata-records';

export function getSavedQueryRoute(server: FastifyInstance, app: App): void {
  server.get<{ Params: { id: string } }>('/queries/:id', { schema: { params: ID_PARAMS } }, async (request) => {
    return { data: storedRecord(app, SAVED_QUERIES, request.params.id) };
  });
}
