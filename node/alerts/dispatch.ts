/**
 * Sending one firing of an alert to its channels. Every enabled channel is sent to at once, each
 * with its own retries, so a slow or failing one never holds back the others; a muted channel
 * (`enabled: false`) sends nothing and reports nothing. The answer is one result per enabled
 * channel, in the alert's order: the `results` of `POST /alerts/{id}/test-channels`.
 */
import { CHANNEL_KINDS } from './channel-kinds';
import { DEFAULT_RETRY, withRetries, type RetryPolicy } from './retry';
import {
  channelName,
  DEFAULT_CHANNEL_OPTIONS,
  type AlertChannel,
  type ChannelOptions,
  type ChannelResult,
  type Notification,
} from './types';

export interface DispatchOptions extends Partial<ChannelOptions> {
  retry?: RetryPolicy;
}

export async function dispatchNotification(
  channels: readonly AlertChannel[],
  notification: Notification,
  options: DispatchOptions = {},
): Promise<ChannelResult[]> {
  const { retry = DEFAULT_RETRY, ...overrides } = options;
  const channelOptions: ChannelOptions = { ...DEFAULT_CHANNEL_OPTIONS, ...definedOnly(overrides) };
  const enabled = channels.filter((channel) => channel.enabled);
  return Promise.all(enabled.map((channel) => sendToChannel(channel, notification, channelOptions, retry)));
}

async function sendToChannel(
  channel: AlertChannel,
  notification: Notification,
  options: ChannelOptions,
  retry: RetryPolicy,
): Promise<ChannelResult> {
  const kind = CHANNEL_KINDS[channel.type];
  const name = channelName(channel);
  let started = 0;
  try {
    await withRetries(() => {
      started = performance.now();
      return kind.send(channel.config, notification, options);
    }, retry);
    return { type: channel.type, name, status: 'ok', latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { type: channel.type, name, status: 'error', error: error instanceof Error ? error.message : String(error) };
  }
}

/** Options with their undefined members dropped, so a caller's `undefined` keeps the default. */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
