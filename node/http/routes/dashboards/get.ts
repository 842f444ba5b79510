/** `GET /dashboards/{id}`: the whole dashboard; 404 NOT_FOUND for an unknown id. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { metadataApiError } from '../../../metadata/api-error';
import { DASHBOARDS } from '../../../metadata/collections';
import { MetadataNotFoundError } from '../../../metadata/store';
import { DASHBOARD_COLLECTION, ID_PARAMS } from './dashboards';

export function getDashboardRoute(server: FastifyInstance, app: App): void {
  server.get<{ Params: { id: string } }>('/dashboards/:id', { schema: { params: ID_PARAMS } }, async (request) => {
    const record = app.metadata.get(DASHBOARD_COLLECTION, request.params.id);
    if (record === undefined) throw metadataApiError(new MetadataNotFoundError(DASHBOARD_COLLECTION, request.params.id, DASHBOARDS.noun));
    return { data: record };
  });
}
