/**
 * The Elasticsearch endpoints that shippers call before or after writing, answered as harmless,
 * correctly shaped no-ops (Elasticsearch 8 shapes): a shipper that polls cluster health, refreshes
 * after a bulk, or installs its index template, lifecycle policy or index then writes as usual.
 *
 * Trawl keeps no Elasticsearch-side objects: the cluster is one green node; `_refresh` has nothing to
 * do (acknowledged events are already searchable); template, policy and index creation are
 * acknowledged and their bodies ignored (events always land in index `main`, `_index` naming the
 * source), so a lookup of one answers 404, as for something never created. Each has its own file.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import { catHealthRoute } from './cat-health';
import { clusterHealthRoutes } from './cluster-health';
import { createIndexRoute } from './create-index';
import { getIndexRoute } from './get-index';
import { licenseRoute } from './license';
import { refreshRoutes } from './refresh';
import { templateRoutes } from './templates';
import { xpackRoute } from './xpack';

export function esAdminRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    clusterHealthRoutes(server);
    catHealthRoute(server);
    refreshRoutes(server);
    templateRoutes(server);
    licenseRoute(server);
    xpackRoute(server, app);
    createIndexRoute(server);
    getIndexRoute(server);
  };
}
