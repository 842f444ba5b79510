/**
 * An alert (docs/api.md "Alerts"): a name, a query checked every `interval`, the channels to notify
 * when its condition is met, and whether it is enabled. This is the definition the metadata store
 * keeps; its runtime status (`status`, `last_checked`, `last_triggered`) is kept apart
 * (alert-states.ts), since it changes every interval.
 */
import { checkQuery } from '../../query/stages';
import { refuseInternalIndexes } from '../../query/stages/internal-indexes';
import { parseDurationMs } from '../config/units';
import { validationError } from '../core/errors';

export const ALERT_FIELDS: readonly string[] = ['name', 'q', 'interval', 'channels', 'enabled'];
/** Set by the server: the store's and the evaluation's fields. */
export const ALERT_SERVER_FIELDS: readonly string[] = ['id', 'created_at', 'updated_at', 'status', 'last_checked', 'last_triggered'];

/** Checks the `channels` array and returns it with defaults filled in; throws 422 VALIDATION_ERROR naming `channels[i].config.<field>`. */
export type ChannelsCheck = (channels: unknown) => readonly object[];

function requiredText(fields: Readonly<Record<string, unknown>>, name: string, what: string): string {
  const value = fields[name];
  if (value === undefined || value === null) throw validationError(`${name} is required`, 422);
  if (typeof value !== 'string' || value.trim() === '') throw validationError(`${name} must be a non-empty string${what}`, 422);
  return value;
}

/** The interval in milliseconds, or a VALIDATION_ERROR: a duration such as `30s`, `1m`, `2m`, `1h`. */
export function alertIntervalMs(interval: string): number {
  const ms = parseDurationMs(interval);
  if (ms === null || ms <= 0 || !Number.isSafeInteger(ms))
    throw validationError(`interval must be a duration such as 30s, 1m, 5m, 15m or 1h; got ${JSON.stringify(interval)}`, 422);
  return ms;
}

/**
 * The alert to keep from a client's fields. Throws VALIDATION_ERROR naming the field, the query's
 * first QueryError, or the channel check's 422.
 */
export function alertRecord(fields: Readonly<Record<string, unknown>>, checkChannels: ChannelsCheck): Record<string, unknown> {
  for (const key of Object.keys(fields)) {
    if (ALERT_SERVER_FIELDS.includes(key)) throw validationError(`${key} is set by the server: leave it out of the request`, 422);
    if (!ALERT_FIELDS.includes(key)) throw validationError(`field "${key}" is not accepted (accepted: ${ALERT_FIELDS.join(', ')})`, 422);
  }
  const name = requiredText(fields, 'name', '');
  const q = requiredText(fields, 'q', ': the query text');
  const checked = checkQuery(q);
  if (!checked.ok) throw checked.errors[0]!;
  refuseInternalIndexes(checked.query);
  const interval = requiredText(fields, 'interval', ': a duration such as 1m');
  alertIntervalMs(interval);
  const enabled = fields.enabled ?? true;
  if (typeof enabled !== 'boolean') throw validationError('enabled must be true or false', 422);
  if (fields.channels === undefined || fields.channels === null)
    throw validationError('channels is required: at least one channel to notify', 422);
  const channels = checkChannels(fields.channels);
  return { name, q, interval, channels, enabled };
}
