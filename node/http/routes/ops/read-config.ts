/** `GET /config`: the running configuration; a root token or cluster secret set in it is shown as `(hidden)`, never in clear. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { Config } from '../../../config/schema';

/** The keys whose values are never answered: section and key. */
const SECRET_KEYS: readonly [string, string][] = [
  ['auth', 'root_token'],
  ['cluster', 'secret'],
];

/** The config as answered: `auth.root_token` and `cluster.secret`, when set, as `(hidden)`. */
export function withoutSecrets(config: Config): Config {
  let shown = config;
  for (const [section, key] of SECRET_KEYS) {
    const values = shown[section] as Record<string, unknown> | undefined;
    if (values?.[key] === null || values?.[key] === undefined) continue;
    shown = { ...shown, [section]: { ...values, [key]: '(hidden)' } };
  }
  return shown;
}

export function readConfigRoute(server: FastifyInstance, app: App): void {
  server.get('/config', async () => ({ data: withoutSecrets(app.config) }));
}
