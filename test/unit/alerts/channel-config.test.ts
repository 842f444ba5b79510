import { strict as assert } from 'assert';
import fc from 'fast-check';
import { validateChannels } from '../../../node/alerts/channel-config';
import { CHANNEL_TYPES } from '../../../node/alerts/types';
import { ApiError } from '../../../node/core/errors';

/** The ApiError validateChannels throws for `channels`, checked to be a 422 VALIDATION_ERROR. */
function refusal(channels: unknown): ApiError {
  try {
    validateChannels(channels);
  } catch (error) {
    assert.ok(error instanceof ApiError, `an ApiError, got ${String(error)}`);
    assert.equal(error.code, 'VALIDATION_ERROR');
    assert.equal(error.status, 422);
    return error;
  }
  assert.fail(`validateChannels accepted ${JSON.stringify(channels)}`);
}

const webhook = { type: 'webhook', config: { url: 'https://hooks.example.com/trawl' } };

describe('alert channel validation', () => {
  it('names the channel index and field path of a missing required field', () => {
    const channels = [webhook, { type: 'chat_webhook', config: { channel: '#ops' } }];
    assert.equal(refusal(channels).message, 'channels[1].config.webhook_url is required');
    assert.equal(refusal([{ type: 'chat_bot', config: { bot_token: '123:abc' } }]).message, 'channels[0].config.chat_id is required');
    assert.equal(refusal([{ type: 'email', config: { to: ['a@example.com'] } }]).message, 'channels[0].config.from is required');
    assert.equal(
      refusal([{ type: 'generic_http', config: { url: 'http://h.example/x' } }]).message,
      'channels[0].config.method is required',
    );
    assert.equal(refusal([{ type: 'webhook' }]).message, 'channels[0].config is required');
  });

  it('wants a non-empty array of channels', () => {
    assert.equal(refusal(undefined).message, 'channels must be an array of channels');
    assert.equal(refusal({ type: 'webhook' }).message, 'channels must be an array of channels');
    assert.equal(refusal([]).message, 'channels must hold at least one channel');
    assert.equal(refusal([webhook, 'webhook']).message, 'channels[1] must be an object with type and config');
  });

  it('lists the known types for an unknown or missing type', () => {
    const known = CHANNEL_TYPES.join(', ');
    assert.equal(refusal([{ type: 'carrier_pigeon', config: {} }]).message, `channels[0].type must be a known channel type: ${known}`);
    assert.equal(refusal([{ config: {} }]).message, `channels[0].type is required; known types: ${known}`);
    for (const type of [
      'webhook',
      'generic_http',
      'chat_webhook',
      'chat_bot',
      'incident_pager',
      'ops_alert',
      'incident_platform',
      'email',
    ]) {
      assert.ok(known.includes(type), type);
    }
  });

  it('refuses unknown channel and config fields with the fields it knows', () => {
    assert.equal(refusal([{ ...webhook, muted: true }]).message, 'channels[0].muted is not a channel field (type, name, enabled, config)');
    assert.equal(
      refusal([{ type: 'webhook', config: { url: 'https://h.example', body: '{}' } }]).message,
      'channels[0].config.body is not a config field of webhook channels (url, method, headers, body_template)',
    );
    assert.equal(
      refusal([{ type: 'incident_pager', config: { routing_key: 'r', urgency: 'high' } }]).message,
      'channels[0].config.urgency is not a config field of incident_pager channels (routing_key, severity)',
    );
  });

  it('checks enums, types and addresses', () => {
    const cases: Array<[unknown, string]> = [
      [{ type: 'webhook', config: { url: 'https://h.example', method: 'GET' } }, 'channels[0].config.method must be one of POST, PUT'],
      [
        { type: 'generic_http', config: { url: 'https://h.example', method: 'DELETE' } },
        'channels[0].config.method must be one of POST, PUT, PATCH',
      ],
      [{ type: 'webhook', config: { url: 'ftp://h.example' } }, 'channels[0].config.url must be an absolute http or https URL'],
      [{ type: 'webhook', config: { url: '/relative' } }, 'channels[0].config.url must be an absolute http or https URL'],
      [
        { type: 'webhook', config: { url: 'https://h.example', headers: ['x'] } },
        'channels[0].config.headers must be an object of header names to string values',
      ],
      [
        { type: 'webhook', config: { url: 'https://h.example', headers: { 'X-Team': 7 } } },
        'channels[0].config.headers.X-Team must be a string',
      ],
      [
        { type: 'webhook', config: { url: 'https://h.example', headers: { 'bad name': 'v' } } },
        'channels[0].config.headers.bad name is not a valid header name',
      ],
      [{ type: 'webhook', config: { url: 'https://h.example', body_template: 5 } }, 'channels[0].config.body_template must be a string'],
      [
        { type: 'chat_bot', config: { bot_token: 't', chat_id: 1, parse_mode: 'Markdown' } },
        'channels[0].config.parse_mode must be one of HTML, MarkdownV2',
      ],
      [{ type: 'chat_bot', config: { bot_token: 't', chat_id: 1.5 } }, 'channels[0].config.chat_id must be a string or an integer'],
      [
        { type: 'chat_bot', config: { bot_token: 'a/b', chat_id: 1 } },
        'channels[0].config.bot_token must not hold spaces or any of / ? # %',
      ],
      [
        { type: 'incident_pager', config: { routing_key: 'r', severity: 'major' } },
        'channels[0].config.severity must be one of critical, error, warning, info',
      ],
      [{ type: 'incident_pager', config: { routing_key: '' } }, 'channels[0].config.routing_key must not be empty'],
      [{ type: 'ops_alert', config: { api_key: 'k', priority: 'P6' } }, 'channels[0].config.priority must be one of P1, P2, P3, P4, P5'],
      [{ type: 'ops_alert', config: { api_key: 'k', tags: 'prod' } }, 'channels[0].config.tags must be an array of strings'],
      [{ type: 'ops_alert', config: { api_key: 'k', tags: ['prod', 1] } }, 'channels[0].config.tags[1] must be a string'],
      [
        { type: 'incident_platform', config: { api_key: 'k', severity: 'error' } },
        'channels[0].config.severity must be one of minor, major, critical',
      ],
      [{ type: 'incident_platform', config: { api_key: 'k', mode: 'dry' } }, 'channels[0].config.mode must be one of real, test'],
      [{ type: 'email', config: { to: [], from: 'a@example.com' } }, 'channels[0].config.to must be a non-empty array of email addresses'],
      [
        { type: 'email', config: { to: 'b@example.com', from: 'a@example.com' } },
        'channels[0].config.to must be a non-empty array of email addresses',
      ],
      [
        { type: 'email', config: { to: ['b@example.com', 'nobody'], from: 'a@example.com' } },
        'channels[0].config.to[1] must be an email address (name@host)',
      ],
      [
        { type: 'email', config: { to: ['b@example.com'], from: 'a example.com' } },
        'channels[0].config.from must be an email address (name@host)',
      ],
      [
        { type: 'email', config: { to: ['b@example.com'], from: 'a@example.com', smtp_port: 25.5 } },
        'channels[0].config.smtp_port must be an integer port from 1 to 65535',
      ],
      [
        { type: 'email', config: { to: ['b@example.com'], from: 'a@example.com', smtp_port: '25' } },
        'channels[0].config.smtp_port must be an integer port from 1 to 65535',
      ],
      [{ ...webhook, enabled: 'no' }, 'channels[0].enabled must be a boolean'],
      [{ ...webhook, name: 3 }, 'channels[0].name must be a string'],
      [
        { type: 'webhook', config: { url: 'https://h.example', headers: JSON.parse('{"__proto__": 1}') } },
        'channels[0].config.headers.__proto__ must be a string',
      ],
    ];
    for (const [channel, message] of cases) assert.equal(refusal([channel]).message, message);
  });

  it('keeps a header named __proto__ as a header', () => {
    const [stored] = validateChannels([
      { type: 'webhook', config: { url: 'https://h.example', headers: JSON.parse('{"__proto__": "x", "X-A": "1"}') } },
    ]);
    assert.deepEqual(Object.entries(stored.config.headers as object), [
      ['__proto__', 'x'],
      ['X-A', '1'],
    ]);
  });

  it('applies the defaults of the SPEC and keeps what was given', () => {
    const stored = validateChannels([
      { type: 'webhook', name: 'hook', config: { url: 'https://h.example/a' } },
      { type: 'generic_http', enabled: false, config: { url: 'https://h.example/b', method: 'PATCH', headers: { 'X-Key': 'k' } } },
      { type: 'chat_webhook', config: { webhook_url: 'https://chat.example/hook' } },
      { type: 'chat_bot', config: { bot_token: '123:abc', chat_id: -1001234 } },
      { type: 'incident_pager', config: { routing_key: 'rk' } },
      { type: 'ops_alert', config: { api_key: 'gk', tags: ['prod'] } },
      { type: 'incident_platform', config: { api_key: 'ik' } },
      { type: 'email', config: { to: ['ops@example.com'], from: 'trawl@example.com' } },
    ]);
    assert.deepEqual(stored, [
      { type: 'webhook', name: 'hook', enabled: true, config: { url: 'https://h.example/a', method: 'POST' } },
      { type: 'generic_http', enabled: false, config: { url: 'https://h.example/b', method: 'PATCH', headers: { 'X-Key': 'k' } } },
      {
        type: 'chat_webhook',
        enabled: true,
        config: { webhook_url: 'https://chat.example/hook', username: 'Trawl', icon_emoji: ':rotating_light:' },
      },
      { type: 'chat_bot', enabled: true, config: { bot_token: '123:abc', chat_id: -1001234, parse_mode: 'HTML' } },
      { type: 'incident_pager', enabled: true, config: { routing_key: 'rk', severity: 'error' } },
      { type: 'ops_alert', enabled: true, config: { api_key: 'gk', priority: 'P3', tags: ['prod'] } },
      { type: 'incident_platform', enabled: true, config: { api_key: 'ik', severity: 'major', mode: 'real' } },
      {
        type: 'email',
        enabled: true,
        config: { to: ['ops@example.com'], from: 'trawl@example.com', smtp_host: 'localhost', smtp_port: 587 },
      },
    ]);
  });

  it('accepts valid channels of every type, and what it stores validates to itself (fuzzed)', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
    const address = fc.tuple(word, word).map(([user, host]) => `${user}@${host}.example`);
    const url = word.map((path) => `https://hooks.example.com/${path}`);
    const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
    const configs: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
      webhook: fc.record({
        url,
        method: optional(fc.constantFrom('POST', 'PUT')),
        headers: optional(
          fc.dictionary(
            word,
            fc.string().filter((v) => !/[\r\n\0]/.test(v)),
          ),
        ),
        body_template: optional(fc.string()),
      }),
      generic_http: fc.record({ url, method: fc.constantFrom('POST', 'PUT', 'PATCH'), body_template: optional(fc.string()) }),
      chat_webhook: fc.record({ webhook_url: url, channel: optional(word), username: optional(word), icon_emoji: optional(word) }),
      chat_bot: fc.record({
        bot_token: word,
        chat_id: fc.oneof(word, fc.integer()),
        parse_mode: optional(fc.constantFrom('HTML', 'MarkdownV2')),
        message_template: optional(fc.string()),
      }),
      incident_pager: fc.record({ routing_key: word, severity: optional(fc.constantFrom('critical', 'error', 'warning', 'info')) }),
      ops_alert: fc.record({
        api_key: word,
        priority: optional(fc.constantFrom('P1', 'P2', 'P3', 'P4', 'P5')),
        tags: optional(fc.array(fc.string())),
      }),
      incident_platform: fc.record({
        api_key: word,
        severity: optional(fc.constantFrom('minor', 'major', 'critical')),
        mode: optional(fc.constantFrom('real', 'test')),
      }),
      email: fc.record({
        to: fc.array(address, { minLength: 1, maxLength: 3 }),
        from: address,
        smtp_host: optional(word),
        smtp_port: optional(fc.integer({ min: 1, max: 65535 })),
      }),
    };
    const channel = fc
      .constantFrom(...CHANNEL_TYPES)
      .chain((type) =>
        fc.record({ type: fc.constant(type), name: optional(word), enabled: optional(fc.boolean()), config: configs[type] }),
      );
    fc.assert(
      fc.property(fc.array(channel, { minLength: 1, maxLength: 4 }), (channels) => {
        // As a client sends them: JSON, absent members dropped.
        const sent = JSON.parse(JSON.stringify(channels)) as Array<{ type: string; enabled?: boolean; config: Record<string, unknown> }>;
        const stored = validateChannels(sent);
        assert.equal(stored.length, sent.length);
        stored.forEach((each, index) => {
          assert.equal(each.type, sent[index].type);
          assert.equal(each.enabled, sent[index].enabled ?? true);
          for (const [field, value] of Object.entries(sent[index].config)) assert.deepEqual(each.config[field], value);
        });
        assert.deepEqual(validateChannels(JSON.parse(JSON.stringify(stored))), stored);
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws anything but a 422 VALIDATION_ERROR naming channels (fuzzed)', () => {
    const configValue = fc.oneof(
      fc.anything(),
      fc.constantFrom('POST', 'PATCH', 'HTML', 'P1', 'critical', 'test', 'a@b.c', 'https://h.example'),
    );
    const channel = fc.oneof(
      fc.anything(),
      fc.record(
        {
          type: fc.oneof(fc.constantFrom(...CHANNEL_TYPES), fc.anything()),
          name: fc.anything(),
          enabled: fc.oneof(fc.boolean(), fc.anything()),
          config: fc.oneof(
            fc.dictionary(
              fc.constantFrom(
                'url',
                'method',
                'headers',
                'body_template',
                'webhook_url',
                'bot_token',
                'chat_id',
                'to',
                'from',
                'smtp_port',
                'tags',
                'severity',
                '__proto__',
                'x',
              ),
              configValue,
            ),
            fc.anything(),
          ),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(fc.oneof(fc.array(channel, { maxLength: 4 }), fc.anything()), (channels) => {
        try {
          const stored = validateChannels(channels);
          assert.ok(stored.length > 0);
          for (const each of stored) assert.equal(typeof each.enabled, 'boolean');
        } catch (error) {
          assert.ok(error instanceof ApiError, `threw ${String(error)}`);
          assert.equal(error.code, 'VALIDATION_ERROR');
          assert.equal(error.status, 422);
          assert.match(error.message, /^channels/);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
