/** The operator's cluster endpoints, one file each: remove a node (remove-node.ts), forget one (forget-node.ts). */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import { forgetNodeRoute } from './forget-node';
import { removeNodeRoute } from './remove-node';

export function clusterAdminRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    removeNodeRoute(server, app);
    forgetNodeRoute(server, app);
  };
}
