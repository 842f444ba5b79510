/**
 * `ops_alert`: Opsgenie's Alert API, `POST {alerts.ops_alert_api}/v2/alerts` with
 * `Authorization: GenieKey <api_key>`. The alias is the alert id: Opsgenie folds the firings of
 * one alert into its one open alert instead of opening one per evaluation (a test gets an alias
 * of its own, so it never folds into a real one).
 */
import type { ChannelKind } from '../channel-kind';
import { oneOf, stringList, text } from '../config-fields';
import { joinUrl, jsonHeaders, sendHttp } from '../http-send';
import { defaultMessage, markTest, valueText } from '../template';

// Alert API limits: message 130 characters, alias 512, description 15,000.
const MESSAGE_MAX = 130;
const ALIAS_MAX = 512;
const DESCRIPTION_MAX = 15_000;

export const opsAlertChannel: ChannelKind = {
  type: 'ops_alert',
  fields: {
    api_key: text({ required: true }),
    priority: oneOf(['P1', 'P2', 'P3', 'P4', 'P5'], { required: false, default: 'P3' }),
    tags: stringList(),
  },
  send: (config, notification, options) => {
    const { alert, result } = notification;
    const title = markTest(`[Trawl] alert "${valueText(alert.name)}" triggered`, notification);
    // details is a map of strings in the Alert API.
    const details: Record<string, string> = { query: alert.q, interval: alert.interval };
    for (const [column, value] of Object.entries(result)) details[`result.${column}`] = valueText(value);
    const body: Record<string, unknown> = {
      message: title.slice(0, MESSAGE_MAX),
      alias: `${notification.test === true ? 'test:' : ''}${alert.id}`.slice(0, ALIAS_MAX),
      description: markTest(defaultMessage(notification), notification).slice(0, DESCRIPTION_MAX),
      priority: config.priority,
      source: 'Trawl',
      details,
    };
    if (config.tags !== undefined) body.tags = config.tags;
    const headers = jsonHeaders({ Authorization: `GenieKey ${config.api_key as string}` });
    return sendHttp(
      { url: opsAlertChannel.target(config, options), method: 'POST', headers, body: JSON.stringify(body) },
      options.sendTimeoutMs,
    );
  },
  target: (_config, options) => joinUrl(options.opsAlertApi, '/v2/alerts'),
};
