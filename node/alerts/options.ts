/**
 * The channel options of a node, from its config section `alerts`: `send_timeout` (a duration)
 * and the four vendor API base URLs, each falling back to the public API when unset (null), so
 * that only tests and private deployments name one.
 */
import { parseDurationMs } from '../config/units';
import { DEFAULT_CHANNEL_OPTIONS, type ChannelOptions } from './types';

function urlOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value : fallback;
}

export function channelOptionsFromConfig(alerts: Readonly<Record<string, unknown>>): ChannelOptions {
  const timeout = alerts.send_timeout;
  const sendTimeoutMs = typeof timeout === 'string' || typeof timeout === 'number' ? parseDurationMs(timeout) : null;
  return {
    sendTimeoutMs: sendTimeoutMs !== null && sendTimeoutMs > 0 ? sendTimeoutMs : DEFAULT_CHANNEL_OPTIONS.sendTimeoutMs,
    chatBotApi: urlOr(alerts.chat_bot_api, DEFAULT_CHANNEL_OPTIONS.chatBotApi),
    incidentPagerApi: urlOr(alerts.incident_pager_api, DEFAULT_CHANNEL_OPTIONS.incidentPagerApi),
    opsAlertApi: urlOr(alerts.ops_alert_api, DEFAULT_CHANNEL_OPTIONS.opsAlertApi),
    incidentPlatformApi: urlOr(alerts.incident_platform_api, DEFAULT_CHANNEL_OPTIONS.incidentPlatformApi),
  };
}
