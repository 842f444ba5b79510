/** Discovery endpoints, one file each: `GET /fields`, `GET /fields/{name}/values`, `GET /sources`. */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import { fieldValuesRoute } from './field-values';
import { fieldsRoute } from './fields';
import { sourcesRoute } from './sources';

export function discoveryRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    fieldsRoute(server, app);
    fieldValuesRoute(server, app);
    sourcesRoute(server, app);
  };
}
