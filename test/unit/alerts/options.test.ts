import { strict as assert } from 'assert';
import { channelOptionsFromConfig } from '../../../node/alerts/options';
import { DEFAULT_CHANNEL_OPTIONS } from '../../../node/alerts/types';
import { defaultConfig } from '../../../node/config/schema';

describe('alert channel options from the config', () => {
  it('the default alerts section gives the public APIs and a 10 s send timeout', () => {
    const alerts = defaultConfig().alerts as Record<string, unknown>;
    assert.deepEqual(channelOptionsFromConfig(alerts), {
      sendTimeoutMs: 10_000,
      chatBotApi: 'https://api.telegram.org',
      incidentPagerApi: 'https://events.pagerduty.com',
      opsAlertApi: 'https://api.opsgenie.com',
      incidentPlatformApi: 'https://api.incident.io',
    });
    assert.deepEqual(channelOptionsFromConfig(alerts), DEFAULT_CHANNEL_OPTIONS);
  });

  it('maps each key onto its option', () => {
    assert.deepEqual(
      channelOptionsFromConfig({
        send_timeout: '2500ms',
        chat_bot_api: 'http://127.0.0.1:1/bot',
        incident_pager_api: 'http://127.0.0.1:2',
        ops_alert_api: 'http://127.0.0.1:3',
        incident_platform_api: 'http://127.0.0.1:4',
      }),
      { sendTimeoutMs: 2500, chatBotApi: 'http://127.0.0.1:1/bot', incidentPagerApi: 'http://127.0.0.1:2', opsAlertApi: 'http://127.0.0.1:3', incidentPlatformApi: 'http://127.0.0.1:4' },
    );
    assert.equal(channelOptionsFromConfig({ send_timeout: '3s' }).sendTimeoutMs, 3000);
  });
});
