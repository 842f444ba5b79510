/**
 * Alerts (docs/api.md "Alerts"), one file per endpoint: `GET|POST /alerts`,
 * `GET|PUT|DELETE /alerts/{id}`, `POST /alerts/{id}/test` and `/test-channels`. Definitions are
 * written through the app's metadata writer; the status comes from the node's alert service.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import { createAlertRoute } from './create';
import { deleteAlertRoute } from './delete';
import { getAlertRoute } from './get';
import { listAlertsRoute } from './list';
import { replaceAlertRoute } from './replace';
import { testAlertRoute } from './test';
import { testAlertChannelsRoute } from './test-channels';

export function alertRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    listAlertsRoute(server, app);
    createAlertRoute(server, app);
    getAlertRoute(server, app);
    replaceAlertRoute(server, app);
    deleteAlertRoute(server, app);
    testAlertRoute(server, app);
    testAlertChannelsRoute(server, app);
  };
}
