/**
 * `chat_webhook`: an incoming webhook of a chat service (Slack's shape, which Mattermost and
 * Rocket.Chat accept too): `text`, and `channel`, `username`, `icon_emoji`.
 */
import type { ChannelKind } from '../channel-kind';
import { httpUrl, text } from '../config-fields';
import { jsonHeaders, sendHttp } from '../http-send';
import { defaultMessage, markTest } from '../template';

export const chatWebhookChannel: ChannelKind = {
  type: 'chat_webhook',
  fields: {
    webhook_url: httpUrl({ required: true }),
    channel: text({ required: false }),
    username: text({ required: false, default: 'Trawl' }),
    icon_emoji: text({ required: false, default: ':rotating_light:' }),
  },
  send: (config, notification, options) => {
    const body: Record<string, unknown> = { text: markTest(defaultMessage(notification), notification) };
    if (config.channel !== undefined) body.channel = config.channel;
    body.username = config.username;
    body.icon_emoji = config.icon_emoji;
    return sendHttp(
      { url: config.webhook_url as string, method: 'POST', headers: jsonHeaders(), body: JSON.stringify(body) },
      options.sendTimeoutMs,
    );
  },
  target: (config) => config.webhook_url as string,
};
