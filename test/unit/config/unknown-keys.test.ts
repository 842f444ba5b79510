/** An unknown config key is refused by name, with the key meant when one is close or of the same name in another section. */
import { strict as assert } from 'assert';
import { defaultConfig } from '../../../node/config/schema';
import { mergeConfig } from '../../../node/config/validate';

function refusal(patch: unknown): string {
  try {
    mergeConfig(defaultConfig(), patch, 'test');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(patch)}`);
}

describe('config: unknown keys', () => {
  it('suggests the key meant: a typo, or the same name in another section', () => {
    assert.equal(
      refusal({ storage: { flush_intervall: '2s' } }),
      'test: unknown key "storage.flush_intervall"; did you mean "storage.flush_interval"?',
    );
    assert.equal(
      refusal({ cluster: { flush_interval: '2s' } }),
      'test: unknown key "cluster.flush_interval"; did you mean "storage.flush_interval"?',
    );
    assert.equal(refusal({ retension: '7d' }), 'test: unknown key "retension"; did you mean "retention"?');
  });

  it('names a key nothing is close to without a guess', () => {
    assert.equal(refusal({ ingest: { bogus_key: 1 } }), 'test: unknown key "ingest.bogus_key"');
  });
});
