/**
 * API-key management (docs/api.md "Authentication"), one file per endpoint: `GET|POST /auth/keys`,
 * `DELETE /auth/keys/{id}`, `POST /auth/rotate-root`. Registered only with auth on (otherwise
 * these paths answer 404); every one needs the root key (node/auth/privileges.ts). Keys are
 * metadata: written through the master in a cluster, read on every node.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import type { Authenticator } from '../../../auth/authenticator';
import { createKeyRoute } from './create-key';
import { listKeysRoute } from './list-keys';
import { revokeKeyRoute } from './revoke-key';
import { rotateRootRoute } from './rotate-root';

export function authRoutes(app: App, authenticator: Authenticator): FastifyPluginAsync {
  return async (server) => {
    listKeysRoute(server, app, authenticator);
    createKeyRoute(server, app, authenticator);
    revokeKeyRoute(server, app);
    rotateRootRoute(server, app, authenticator);
  };
}
