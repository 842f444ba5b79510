/**
 * The shapes the alert channels share: a channel as stored with its alert, what a notification
 * carries, the options a node passes in (from its `alerts` config section) and the result of one
 * send (the shape of `POST /alerts/{id}/test-channels`'s `results`).
 */

export const CHANNEL_TYPES = [
  'webhook',
  'generic_http',
  'chat_webhook',
  'chat_bot',
  'incident_pager',
  'ops_alert',
  'incident_platform',
  'email',
] as const;

export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** A channel after validation: defaults applied, `enabled` always present. */
export interface AlertChannel {
  type: ChannelType;
  name?: string;
  enabled: boolean;
  config: Record<string, unknown>;
}

/** The alert fields a notification reads (`{{.alert.*}}` reaches every member). */
export interface NotifiedAlert {
  id: string;
  name: string;
  q: string;
  interval: string;
  [field: string]: unknown;
}

/** One firing of an alert: what its templates and messages are made of. */
export interface Notification {
  alert: NotifiedAlert;
  /** The first result row, column -> value. */
  result: Record<string, unknown>;
  /** When the evaluation ran, ISO 8601; with the alert id it is the firing's de-duplication key. */
  timestamp: string;
  /** A test notification (`/alerts/{id}/test-channels`): marked `[TEST]`, never a real incident. */
  test?: boolean;
}

/** Where the vendor APIs are and how long a send may take (config section `alerts`). */
export interface ChannelOptions {
  /** `alerts.send_timeout`: one attempt's limit, connection to answer. */
  sendTimeoutMs: number;
  /** `alerts.chat_bot_api`: a Telegram-style bot API. */
  chatBotApi: string;
  /** `alerts.incident_pager_api`: a PagerDuty Events API v2. */
  incidentPagerApi: string;
  /** `alerts.ops_alert_api`: an Opsgenie Alert API. */
  opsAlertApi: string;
  /** `alerts.incident_platform_api`: an incident.io API. */
  incidentPlatformApi: string;
}

export const DEFAULT_CHANNEL_OPTIONS: ChannelOptions = {
  sendTimeoutMs: 10_000,
  chatBotApi: 'https://api.telegram.org',
  incidentPagerApi: 'https://events.pagerduty.com',
  opsAlertApi: 'https://api.opsgenie.com',
  incidentPlatformApi: 'https://api.incident.io',
};

/** The outcome of one channel's notification. */
export interface ChannelResult {
  type: ChannelType;
  name: string;
  status: 'ok' | 'error';
  /** Time of the successful attempt, when ok. */
  latency_ms?: number;
  /** Why the last attempt failed, when error. */
  error?: string;
}

/** The name a result reports: the channel's own, else its type. */
export function channelName(channel: AlertChannel): string {
  return channel.name ?? channel.type;
}
