/**
 * The alert channel types and their config fields (docs/api.md "Alerts"), checked in the form as
 * the API checks them, with the API's messages (`channels[1].config.webhook_url is required`).
 */
type FieldKind = 'text' | 'url' | 'enum' | 'template' | 'list' | 'port' | 'headers';

export interface ChannelField {
  name: string;
  kind: FieldKind;
  required: boolean;
  choices?: readonly string[];
  placeholder?: string;
}

const f = (name: string, kind: FieldKind, required = false, extra: Partial<ChannelField> = {}): ChannelField => ({
  name,
  kind,
  required,
  ...extra,
});

export const CHANNEL_TYPES: Readonly<Record<string, readonly ChannelField[]>> = {
  webhook: [
    f('url', 'url', true),
    f('method', 'enum', false, { choices: ['POST', 'PUT'] }),
    f('headers', 'headers'),
    f('body_template', 'template'),
  ],
  generic_http: [
    f('url', 'url', true),
    f('method', 'enum', true, { choices: ['POST', 'PUT', 'PATCH'] }),
    f('headers', 'headers'),
    f('body_template', 'template'),
  ],
  chat_webhook: [
    f('webhook_url', 'url', true),
    f('channel', 'text'),
    f('username', 'text', false, { placeholder: 'Trawl' }),
    f('icon_emoji', 'text', false, { placeholder: ':rotating_light:' }),
  ],
  chat_bot: [
    f('bot_token', 'text', true),
    f('chat_id', 'text', true),
    f('message_template', 'template'),
    f('parse_mode', 'enum', false, { choices: ['HTML', 'MarkdownV2'] }),
  ],
  incident_pager: [f('routing_key', 'text', true), f('severity', 'enum', false, { choices: ['critical', 'error', 'warning', 'info'] })],
  ops_alert: [f('api_key', 'text', true), f('priority', 'enum', false, { choices: ['P1', 'P2', 'P3', 'P4', 'P5'] }), f('tags', 'list')],
  email: [
    f('to', 'list', true, { placeholder: 'a@example.com, b@example.com' }),
    f('from', 'text', true),
    f('smtp_host', 'text', false, { placeholder: 'localhost' }),
    f('smtp_port', 'port', false, { placeholder: '587' }),
  ],
  incident_platform: [
    f('api_key', 'text', true),
    f('severity', 'enum', false, { choices: ['minor', 'major', 'critical'] }),
    f('mode', 'enum', false, { choices: ['real', 'test'] }),
  ],
};

export interface Channel {
  type: string;
  name?: string;
  enabled?: boolean;
  config: Record<string, unknown>;
}

/** What the form holds for a field: text as typed. */
export function formText(value: unknown, kind: FieldKind): string {
  if (value === undefined || value === null) return '';
  if (kind === 'list' && Array.isArray(value)) return value.join(', ');
  if (kind === 'headers') return JSON.stringify(value);
  return String(value);
}

/**
 * The config as the API takes it from the form's texts, or the first problem, worded as the API
 * words it. Empty optional fields are left out (the API's defaults apply).
 */
export function channelConfig(
  type: string,
  texts: Record<string, string>,
  index: number,
): { config: Record<string, unknown> } | { problem: string } {
  const fields = CHANNEL_TYPES[type];
  if (fields === undefined) return { problem: `channels[${index}].type must be one of ${Object.keys(CHANNEL_TYPES).join(', ')}` };
  const config: Record<string, unknown> = {};
  for (const field of fields) {
    const path = `channels[${index}].config.${field.name}`;
    const text = (texts[field.name] ?? '').trim();
    if (text === '') {
      if (field.required) return { problem: `${path} is required` };
      continue;
    }
    switch (field.kind) {
      case 'url':
        if (!/^https?:\/\/[^\s/]+/.test(text)) return { problem: `${path} must be an absolute http or https URL` };
        config[field.name] = text;
        break;
      case 'enum':
        if (!field.choices!.includes(text)) return { problem: `${path} must be one of ${field.choices!.join(', ')}` };
        config[field.name] = text;
        break;
      case 'list':
        config[field.name] = text
          .split(',')
          .map((each) => each.trim())
          .filter((each) => each !== '');
        break;
      case 'port': {
        const port = Number(text);
        if (!Number.isInteger(port) || port < 1 || port > 65535) return { problem: `${path} must be an integer from 1 to 65535` };
        config[field.name] = port;
        break;
      }
      case 'headers': {
        let headers: unknown;
        try {
          headers = JSON.parse(text);
        } catch {
          return { problem: `${path} must be an object of header names and string values` };
        }
        if (
          typeof headers !== 'object' ||
          headers === null ||
          Array.isArray(headers) ||
          Object.values(headers).some((value) => typeof value !== 'string')
        )
          return { problem: `${path} must be an object of header names and string values` };
        config[field.name] = headers;
        break;
      }
      default:
        config[field.name] = texts[field.name];
    }
  }
  return { config };
}
