/** `PUT /dashboards/{id}`: a full replacement (every panel and variable); `created_at` kept. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { DASHBOARD_BODY_SCHEMA, DASHBOARD_COLLECTION, ID_PARAMS, JSON_BODY, writeDashboard, type DashboardBody } from './dashboards';

export function replaceDashboardRoute(server: FastifyInstance, app: App): void {
  server.put<{ Params: { id: string }; Body: DashboardBody }>(
    '/dashboards/:id',
    { schema: { params: ID_PARAMS, body: DASHBOARD_BODY_SCHEMA }, config: JSON_BODY },
    async (request) => ({
      data: await writeDashboard(app, request, {
        collection: DASHBOARD_COLLECTION,
        op: 'replace',
        id: request.params.id,
        record: { ...request.body },
      }),
    }),
  );
}
