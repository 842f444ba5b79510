/**
 * SIGHUP: the config file read again and applied (live keys at once, others after a restart), then
 * the TLS files read again. Each is logged and written to the audit log as `config.reload` and
 * `tls.reload`, with the signal as the actor (no key, no client address); the config entry names
 * the keys that changed, never their values. A reload that cannot be used keeps what is running
 * and is recorded as a failure.
 */
import type { AuditAction, AuditOutcome } from '../audit/audit-entry';
import { signalActor } from '../audit/audit-entry';
import { loadConfig, type CommandLineOverrides } from '../config/load';
import { ConfigError } from '../config/validate';
import type { Logger } from '../core/logger';
import type { App } from './app';

const SIGNAL = 'SIGHUP';

/** `reason`: for a failure, the code PATCH /config would answer for it (VALIDATION_ERROR: the file or the certificate cannot be used). */
async function recordReload(
  app: App,
  action: AuditAction,
  outcome: AuditOutcome,
  target: string | null,
  reason: string | null = null,
): Promise<void> {
  await app.audit.record({ action, outcome, actor: signalActor(SIGNAL, app.settings.cluster.nodeId), target, reason });
}

export async function reloadOnSignal(app: App, overrides: CommandLineOverrides, logger: Logger): Promise<void> {
  try {
    const result = app.applyConfig(loadConfig(overrides));
    logger.info(
      `config reloaded: ${result.changed.join(', ') || 'no change'}` +
        (result.restartRequired.length > 0 ? `; restart required for ${result.restartRequired.join(', ')}` : ''),
    );
    await recordReload(app, 'config.reload', 'success', result.changed.length > 0 ? [...result.changed].sort().join(', ') : null);
  } catch (error) {
    logger.error(`config reload failed, keeping the running config: ${(error as Error).message}`);
    await recordReload(app, 'config.reload', 'failure', null, error instanceof ConfigError ? 'VALIDATION_ERROR' : 'INTERNAL_ERROR');
  }
  if (app.tls === null) return;
  try {
    const reloaded = app.reloadTls();
    if (reloaded !== null) logger.info(`tls: certificate reloaded; new connections use it (valid until ${reloaded.validTo})`);
    await recordReload(app, 'tls.reload', 'success', null);
  } catch (error) {
    logger.error(`tls: reload failed, keeping the certificate in use: ${(error as Error).message}`);
    await recordReload(app, 'tls.reload', 'failure', null, 'VALIDATION_ERROR');
  }
}
