/** `POST /dashboards`: 201 with the dashboard, panel defaults filled in, id and times set by the server. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { DASHBOARD_BODY_SCHEMA, DASHBOARD_COLLECTION, JSON_BODY, writeDashboard, type DashboardBody } from './dashboards';

export function createDashboardRoute(server: FastifyInstance, app: App): void {
  server.post<{ Body: DashboardBody }>(
    '/dashboards',
    { schema: { body: DASHBOARD_BODY_SCHEMA }, config: JSON_BODY },
    async (request, reply) => {
      const record = await writeDashboard(app, request, { collection: DASHBOARD_COLLECTION, op: 'create', record: { ...request.body } });
      return reply.status(201).send({ data: record });
    },
  );
}
