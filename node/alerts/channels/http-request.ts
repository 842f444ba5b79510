/**
 * The request of the two plain HTTP channels (`webhook`, `generic_http`): the configured method
 * and headers, and the rendered body template or, without one, a JSON object of the alert, the
 * result row, the time and the default message (the alert without its channels, whose secrets
 * are not this receiver's). A test notification carries the header
 * `X-Trawl-Test: true` (and `"test": true` in the default body): a body template is the author's
 * JSON, which a `[TEST]` prefix would break.
 */
import { jsonHeaders, type HttpRequest } from '../http-send';
import { defaultMessage, markTest, renderTemplate, shownAlertFields } from '../template';
import type { Notification } from '../types';

export const TEST_HEADER = 'X-Trawl-Test';

export function plainHttpRequest(config: Record<string, unknown>, notification: Notification): HttpRequest {
  const bodyTemplate = config.body_template as string | undefined;
  const body =
    bodyTemplate !== undefined
      ? renderTemplate(bodyTemplate, notification)
      : JSON.stringify({
          alert: shownAlertFields(notification.alert),
          result: notification.result,
          timestamp: notification.timestamp,
          message: markTest(defaultMessage(notification), notification),
          ...(notification.test === true ? { test: true } : {}),
        });
  const headers = jsonHeaders(config.headers as Record<string, string> | undefined);
  if (notification.test === true) headers[TEST_HEADER] = 'true';
  return { url: config.url as string, method: config.method as string, headers, body };
}
