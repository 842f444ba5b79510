/** `DELETE /queries/{id}`: deletes a saved query; 204. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { SAVED_QUERY_COLLECTION, ID_PARAMS, writeSavedQuery } from './saved-queries';

export function deleteSavedQueryRoute(server: FastifyInstance, app: App): void {
  server.delete<{ Params: { id: string } }>('/queries/:id', { schema: { params: ID_PARAMS } }, async (request, reply) => {
    await writeSavedQuery(app, request, { collection: SAVED_QUERY_COLLECTION, op: 'delete', id: request.params.id });
    return reply.status(204).send();
  });
}
