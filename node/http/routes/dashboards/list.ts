/** `GET /dashboards`: every dashboard in the list form (no panels, their count), oldest first. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { dashboardListItem } from '../../../metadata/dashboard';
import { DASHBOARD_COLLECTION, NO_PARAMETERS } from './dashboards';

export function listDashboardsRoute(server: FastifyInstance, app: App): void {
  server.get('/dashboards', { schema: { querystring: NO_PARAMETERS } }, async () => {
    return { data: { dashboards: app.metadata.list(DASHBOARD_COLLECTION).map(dashboardListItem) } };
  });
}
