/**
 * Dashboards (docs/api.md "Dashboards"), one file per endpoint: `GET|POST /dashboards`,
 * `GET|PUT|DELETE /dashboards/{id}`. Reads come from the node's metadata store; writes go through
 * the app's metadata writer, whose authority checks the record again (node/metadata/dashboard.ts)
 * and assigns id and times.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import { createDashboardRoute } from './create';
import { deleteDashboardRoute } from './delete';
import { getDashboardRoute } from './get';
import { listDashboardsRoute } from './list';
import { replaceDashboardRoute } from './replace';

export function dashboardRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    listDashboardsRoute(server, app);
    createDashboardRoute(server, app);
    getDashboardRoute(server, app);
    replaceDashboardRoute(server, app);
    deleteDashboardRoute(server, app);
  };
}
