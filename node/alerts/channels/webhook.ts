/** `webhook`: the alert as JSON (or a body template) to a URL, by POST or PUT. */
import type { ChannelKind } from '../channel-kind';
import { headers, httpUrl, oneOf, template } from '../config-fields';
import { sendHttp } from '../http-send';
import { plainHttpRequest } from './http-request';

export const webhookChannel: ChannelKind = {
  type: 'webhook',
  fields: {
    url: httpUrl({ required: true }),
    method: oneOf(['POST', 'PUT'], { required: false, default: 'POST' }),
    headers: headers(),
    body_template: template(),
  },
  send: (config, notification, options) => sendHttp(plainHttpRequest(config, notification), options.sendTimeoutMs),
  target: (config) => config.url as string,
};
