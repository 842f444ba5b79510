/** `generic_http`: like `webhook`, with the method required and PATCH allowed. */
import type { ChannelKind } from '../channel-kind';
import { headers, httpUrl, oneOf, template } from '../config-fields';
import { sendHttp } from '../http-send';
import { plainHttpRequest } from './http-request';

export const genericHttpChannel: ChannelKind = {
  type: 'generic_http',
  fields: {
    url: httpUrl({ required: true }),
    method: oneOf(['POST', 'PUT', 'PATCH'], { required: true }),
    headers: headers(),
    body_template: template(),
  },
  send: (config, notification, options) => sendHttp(plainHttpRequest(config, notification), options.sendTimeoutMs),
  target: (config) => config.url as string,
};
