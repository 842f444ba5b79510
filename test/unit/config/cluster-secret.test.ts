/**
 * `cluster.secret`: unset by default; TRAWL_CLUSTER_SECRET sets it and a flag comes before it; a
 * short one is refused without the error repeating it; GET /config shows it as `(hidden)`; a
 * change takes effect only after a restart.
 */
import { strict as assert } from 'assert';
import { loadConfig } from '../../../node/config/load';
import { RESTART_REQUIRED_KEYS } from '../../../node/config/schema';
import { resolveSettings } from '../../../node/config/settings';
import { withoutSecrets } from '../../../node/http/routes/ops/read-config';

const FROM_ENV = 'from-the-environment-0123456789';

describe('config: cluster.secret', () => {
  it('is unset by default', () => {
    assert.equal(resolveSettings(loadConfig({ sets: [] }, {})).cluster.secret, null);
  });

  it('comes from TRAWL_CLUSTER_SECRET, and a flag comes before it', () => {
    assert.equal(resolveSettings(loadConfig({ sets: [] }, { TRAWL_CLUSTER_SECRET: FROM_ENV })).cluster.secret, FROM_ENV);
    const flagged = loadConfig({ sets: [['cluster.secret', 'from-the-flag-0123456789']] }, { TRAWL_CLUSTER_SECRET: FROM_ENV });
    assert.equal(resolveSettings(flagged).cluster.secret, 'from-the-flag-0123456789');
  });

  it('is refused under 16 characters, without the error repeating it', () => {
    assert.throws(
      () => loadConfig({ sets: [] }, { TRAWL_CLUSTER_SECRET: 'short-secret' }),
      (error: Error) => /cluster\.secret must be at least 16 characters/.test(error.message) && !error.message.includes('short-secret'),
    );
  });

  it('is shown as (hidden), as auth.root_token is, and needs a restart to change', () => {
    const config = loadConfig({ sets: [['auth.root_token', 'root-token-value']] }, { TRAWL_CLUSTER_SECRET: FROM_ENV });
    const shown = withoutSecrets(config);
    assert.equal((shown.cluster as Record<string, unknown>).secret, '(hidden)');
    assert.equal((shown.auth as Record<string, unknown>).root_token, '(hidden)');
    assert.equal((config.cluster as Record<string, unknown>).secret, FROM_ENV, 'the running config keeps it');
    assert.equal((withoutSecrets(loadConfig({ sets: [] }, {})).cluster as Record<string, unknown>).secret, null);
    assert.ok(RESTART_REQUIRED_KEYS.has('cluster.secret'));
  });
});
