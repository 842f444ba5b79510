/** `GET /dashboards/{id}`: the whole dashboard; 404 NOT_FOUND for an unknown id. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { DASHBOARDS } from '../../../metadata/collections';
import { ID_PARAMS, storedRecord } from '../metadata-records';

export function getDashboardRoute(server: FastifyInstance, app: App): void {
  server.get<{ Params: { id: string } }>('/dashboards/:id', { schema: { params: ID_PARAMS } }, async (request) => {
    return { data: storedRecord(app, DASHBOARDS, request.params.id) };
  });
}
