/**
 * `incident_pager`: PagerDuty's Events API v2, `POST {alerts.incident_pager_api}/v2/enqueue`, a
 * `trigger` event. The de-duplication key is the alert id and the evaluation time, so each firing
 * is its own incident and a retried send of one firing is not a second.
 */
import type { ChannelKind } from '../channel-kind';
import { oneOf, text } from '../config-fields';
import { joinUrl, jsonHeaders, sendHttp } from '../http-send';
import { defaultMessage, markTest } from '../template';

// Events API v2 limits: summary 1024 characters, dedup_key 255.
const SUMMARY_MAX = 1024;
const DEDUP_KEY_MAX = 255;

export const incidentPagerChannel: ChannelKind = {
  type: 'incident_pager',
  fields: {
    routing_key: text({ required: true }),
    severity: oneOf(['critical', 'error', 'warning', 'info'], { required: false, default: 'error' }),
  },
  send: (config, notification, options) => {
    const { alert, result, timestamp } = notification;
    const body = {
      routing_key: config.routing_key,
      event_action: 'trigger',
      dedup_key: `${notification.test === true ? 'test:' : ''}${alert.id}:${timestamp}`.slice(0, DEDUP_KEY_MAX),
      client: 'Trawl',
      payload: {
        summary: markTest(defaultMessage(notification), notification).slice(0, SUMMARY_MAX),
        source: 'trawl',
        severity: config.severity,
        timestamp,
        component: alert.name,
        custom_details: { alert: { id: alert.id, name: alert.name, q: alert.q, interval: alert.interval }, result },
      },
    };
    return sendHttp(
      { url: incidentPagerChannel.target(config, options), method: 'POST', headers: jsonHeaders(), body: JSON.stringify(body) },
      options.sendTimeoutMs,
    );
  },
  target: (_config, options) => joinUrl(options.incidentPagerApi, '/v2/enqueue'),
};
