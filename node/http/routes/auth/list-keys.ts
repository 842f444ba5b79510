/** `GET /auth/keys`: every key, oldest first, never a token or a hash. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { Authenticator } from '../../../auth/authenticator';
import { API_KEYS } from '../../../metadata/collections';
import { keyView, NO_PARAMETERS } from './keys';

export function listKeysRoute(server: FastifyInstance, app: App, authenticator: Authenticator): void {
  server.get('/auth/keys', { schema: { querystring: NO_PARAMETERS } }, async () => ({
    data: { keys: app.metadata.list(API_KEYS.name).map((record) => keyView(record, authenticator)) },
  }));
}
