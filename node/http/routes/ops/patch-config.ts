/** `PATCH /config`: changes the patchable keys at runtime, checked as a reload checks them. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ConfigError, mergeConfig } from '../../../config/validate';
import { validationError } from '../../../core/errors';
import { audited } from '../../audit-request';
import { withoutSecrets } from './read-config';

const PATCHABLE_KEYS = new Set(['retention', 'log_level', 'listen', 'query', 'ingest', 'storage', 'http', 'tail']);
/** A JSON object; its keys and values are checked as a reload checks them (mergeConfig). */
const CONFIG_PATCH_SCHEMA = { type: 'object' } as const;
/**
 * The body limit of PATCH /config, its own rather than ingest.max_body_size: whatever limit a patch
 * sets, the next patch can still be sent to undo it. A patch of every patchable key fits many times.
 */
export const CONFIG_PATCH_BODY_LIMIT = 64 * 1024;

/** The dotted keys a patch sets (`retention`, `query.max_concurrent`), sorted: config keys are two levels deep at most. */
function patchedPaths(patch: Record<string, unknown>): string[] {
  const paths: string[] = [];
  for (const [section, value] of Object.entries(patch)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) {
      for (const key of Object.keys(value)) paths.push(`${section}.${key}`);
    } else {
      paths.push(section);
    }
  }
  return paths.sort();
}

export function patchConfigRoute(server: FastifyInstance, app: App): void {
  const patchConfig = {
    schema: { body: CONFIG_PATCH_SCHEMA },
    config: { bodyFormat: 'json', ownBodyLimit: CONFIG_PATCH_BODY_LIMIT },
  } as const;
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
    // The audit log names the keys the patch set, never their values.
    const result = await audited(app, request, 'config.patch', { target: patchedPaths(patch).join(', ') }, async () =>
      app.applyConfig(next),
    );
    app.logger.info(`config patched: ${result.changed.join(', ') || 'no change'}`);
    return { data: { config: withoutSecrets(app.config), changed: result.changed, restart_required: result.restartRequired } };
  });
}
