/**
 * Validation of an alert's `channels`: every failure is a 422 VALIDATION_ERROR whose message
 * starts with the path of the wrong value (`channels[1].config.webhook_url is required`), as
 * docs/api.md promises. A valid list comes back with each channel's defaults applied.
 */
import { CHANNEL_KINDS } from './channel-kinds';
import { invalid, isRecord, type ConfigFields } from './config-fields';
import { CHANNEL_TYPES, type AlertChannel, type ChannelType } from './types';

const CHANNEL_FIELDS = ['type', 'name', 'enabled', 'config'];

function isChannelType(value: unknown): value is ChannelType {
  return typeof value === 'string' && (CHANNEL_TYPES as readonly string[]).includes(value);
}

/** Checks an alert's `channels` value; returns the channels as stored. */
export function validateChannels(value: unknown): AlertChannel[] {
  if (!Array.isArray(value)) throw invalid('channels', 'must be an array of channels');
  if (value.length === 0) throw invalid('channels', 'must hold at least one channel');
  return value.map((channel, index) => validateChannel(channel, `channels[${index}]`));
}

export function validateChannel(value: unknown, path: string): AlertChannel {
  if (!isRecord(value)) throw invalid(path, 'must be an object with type and config');
  for (const key of Object.keys(value)) {
    if (!CHANNEL_FIELDS.includes(key)) throw invalid(`${path}.${key}`, `is not a channel field (${CHANNEL_FIELDS.join(', ')})`);
  }
  const type = Object.hasOwn(value, 'type') ? value.type : undefined;
  if (type === undefined) throw invalid(`${path}.type`, `is required; known types: ${CHANNEL_TYPES.join(', ')}`);
  if (!isChannelType(type)) throw invalid(`${path}.type`, `must be a known channel type: ${CHANNEL_TYPES.join(', ')}`);
  const channel: AlertChannel = { type, enabled: true, config: {} };
  if (Object.hasOwn(value, 'name')) {
    if (typeof value.name !== 'string') throw invalid(`${path}.name`, 'must be a string');
    channel.name = value.name;
  }
  if (Object.hasOwn(value, 'enabled')) {
    if (typeof value.enabled !== 'boolean') throw invalid(`${path}.enabled`, 'must be a boolean');
    channel.enabled = value.enabled;
  }
  if (!Object.hasOwn(value, 'config')) throw invalid(`${path}.config`, 'is required');
  channel.config = validateConfig(value.config, type, CHANNEL_KINDS[type].fields, `${path}.config`);
  return channel;
}

function validateConfig(value: unknown, type: ChannelType, fields: ConfigFields, path: string): Record<string, unknown> {
  if (!isRecord(value)) throw invalid(path, 'must be an object');
  const known = Object.keys(fields);
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key)) throw invalid(`${path}.${key}`, `is not a config field of ${type} channels (${known.join(', ')})`);
  }
  const config: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(fields)) {
    const present = Object.hasOwn(value, field) && value[field] !== undefined;
    if (present) config[field] = rule.check(value[field], `${path}.${field}`);
    else if (rule.required) throw invalid(`${path}.${field}`, 'is required');
    else if (rule.default !== undefined) config[field] = rule.default;
  }
  return config;
}
