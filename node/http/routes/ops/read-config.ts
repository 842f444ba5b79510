/** `GET /config`: the running configuration; a root token set in it is shown as `(hidden)`, never in clear. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { Config } from '../../../config/schema';

/** The config as answered: `auth.root_token`, when set, as `(hidden)`. */
export function withoutSecrets(config: Config): Config {
  const auth = config.auth as Record<string, unknown> | undefined;
  if (auth?.root_token === null || auth?.root_token === undefined) return config;
  return { ...config, auth: { ...auth, root_token: '(hidden)' } };
}

export function readConfigRoute(server: FastifyInstance, app: App): void {
  server.get('/config', async () => ({ data: withoutSecrets(app.config) }));
}
