/**
 * `incident_platform`: modelled on incident.io's Create incident API (v2),
 * `POST {alerts.incident_platform_api}/v2/incidents` with `Authorization: Bearer <api_key>`:
 * `idempotency_key` (alert id and evaluation time: a retried send opens no second incident),
 * `name`, `summary`, `visibility`, and `mode` (`standard` for `real`, `test` for `test`: a test
 * incident pages nobody). The severity goes by its name in `severity` (incident.io itself takes a
 * `severity_id` of the account's own severities, which a config cannot know in advance). A test
 * notification always opens a test incident, whatever the configured mode.
 */
import type { ChannelKind } from '../channel-kind';
import { oneOf, text } from '../config-fields';
import { joinUrl, jsonHeaders, sendHttp } from '../http-send';
import { defaultMessage, markTest, valueText } from '../template';

export const incidentPlatformChannel: ChannelKind = {
  type: 'incident_platform',
  fields: {
    api_key: text({ required: true }),
    severity: oneOf(['minor', 'major', 'critical'], { required: false, default: 'major' }),
    mode: oneOf(['real', 'test'], { required: false, default: 'real' }),
  },
  send: (config, notification, options) => {
    const { alert, timestamp } = notification;
    const testIncident = notification.test === true || config.mode === 'test';
    const body = {
      idempotency_key: `${notification.test === true ? 'test:' : ''}${alert.id}:${timestamp}`,
      name: markTest(`[Trawl] alert "${valueText(alert.name)}" triggered`, notification),
      summary: markTest(defaultMessage(notification), notification),
      severity: config.severity,
      mode: testIncident ? 'test' : 'standard',
      visibility: 'public',
    };
    const headers = jsonHeaders({ Authorization: `Bearer ${config.api_key as string}` });
    return sendHttp(
      { url: incidentPlatformChannel.target(config, options), method: 'POST', headers, body: JSON.stringify(body) },
      options.sendTimeoutMs,
    );
  },
  target: (_config, options) => joinUrl(options.incidentPlatformApi, '/v2/incidents'),
};
