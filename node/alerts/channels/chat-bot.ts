/**
 * `chat_bot`: a Telegram-style bot API, `POST {alerts.chat_bot_api}/bot<token>/sendMessage` with
 * `chat_id`, `text`, `parse_mode`. Values inserted into the message are escaped for the parse
 * mode, so a `<` or a `.` in a result cannot make the API refuse the message; the template's own
 * text is the author's markup and is sent as written.
 */
import type { ChannelKind } from '../channel-kind';
import { chatId, oneOf, pathSecret, template } from '../config-fields';
import { joinUrl, jsonHeaders, sendHttp } from '../http-send';
import { defaultMessage, markTest, renderTemplate } from '../template';

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Every character MarkdownV2 reserves, backslash first. */
export function escapeMarkdownV2(value: string): string {
  return value.replace(/[\\_*[\]()~`>#+\-=|{}.!]/g, (character) => `\\${character}`);
}

export const chatBotChannel: ChannelKind = {
  type: 'chat_bot',
  fields: {
    bot_token: pathSecret(),
    chat_id: chatId(),
    message_template: template(),
    parse_mode: oneOf(['HTML', 'MarkdownV2'], { required: false, default: 'HTML' }),
  },
  send: (config, notification, options) => {
    const escape = config.parse_mode === 'MarkdownV2' ? escapeMarkdownV2 : escapeHtml;
    const messageTemplate = config.message_template as string | undefined;
    const message =
      messageTemplate !== undefined ? renderTemplate(messageTemplate, notification, escape) : defaultMessage(notification, escape);
    // `[TEST]` holds MarkdownV2 reserved characters: escaped there, plain in HTML.
    const marked =
      notification.test === true && config.parse_mode === 'MarkdownV2'
        ? `${escapeMarkdownV2('[TEST]')} ${message}`
        : markTest(message, notification);
    const body = { chat_id: config.chat_id, text: marked, parse_mode: config.parse_mode };
    return sendHttp(
      { url: chatBotChannel.target(config, options), method: 'POST', headers: jsonHeaders(), body: JSON.stringify(body) },
      options.sendTimeoutMs,
    );
  },
  target: (config, options) => joinUrl(options.chatBotApi, `/bot${config.bot_token as string}/sendMessage`),
};
