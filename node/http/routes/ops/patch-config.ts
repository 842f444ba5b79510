/** `PATCH /config`: changes the patchable keys at runtime, checked as a reload checks them. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ConfigError, mergeConfig } from '../../../config/validate';
import { validationError } from '../../../core/errors';
import { withoutSecrets } from './read-config';

const PATCHABLE_KEYS = new Set(['retention', 'log_level', 'listen', 'query', 'ingest', 'storage', 'http', 'tail']);
/** A JSON object; its keys and values are checked as a reload checks them (mergeConfig). */
const CONFIG_PATCH_SCHEMA = { type: 'object' } as const;

export function patchConfigRoute(server: FastifyInstance, app: App): void {
  const patchConfig = { schema: { body: CONFIG_PATCH_SCHEMA }, config: { bodyFormat: 'json' } } as const;
  server.patch<{ Body: Record<string, unknown> }>('/config', patchConfig, async (request) => {
    const patch = request.body;
    // Validated before the patchable check, so that a key of a feature this version lacks says so.
    let next;
    try {
      next = mergeConfig(app.config, patch, 'PATCH /config');
    } catch (error) {
      if (error instanceof ConfigError) throw validationError(error.message);
      throw error;
    }
    const unknown = Object.keys(patch).filter((key) => !PATCHABLE_KEYS.has(key));
    if (unknown.length > 0) {
      throw validationError(`these keys cannot be patched: ${unknown.join(', ')} (allowed: ${[...PATCHABLE_KEYS].join(', ')})`);
    }
    const result = app.applyConfig(next);
    app.logger.info(`config patched: ${result.changed.join(', ') || 'no change'}`);
    return { data: { config: withoutSecrets(app.config), changed: result.changed, restart_required: result.restartRequired } };
  });
}
