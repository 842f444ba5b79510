/**
 * Saved queries (docs/api.md "Saved queries"), one file per endpoint: `GET|POST /queries`,
 * `GET|PUT|DELETE /queries/{id}`. Reads come from the node's metadata store; writes go through the
 * app's metadata writer, whose authority checks the record again (the query text must parse) and
 * assigns id and times.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import { createSavedQueryRoute } from './create';
import { deleteSavedQueryRoute } from './delete';
import { getSavedQueryRoute } from './get';
import { listSavedQueriesRoute } from './list';
import { replaceSavedQueryRoute } from './replace';

export function savedQueryRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    listSavedQueriesRoute(server, app);
    createSavedQueryRoute(server, app);
    getSavedQueryRoute(server, app);
    replaceSavedQueryRoute(server, app);
    deleteSavedQueryRoute(server, app);
  };
}
