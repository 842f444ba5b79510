import { strict as assert } from 'assert';
import { stageOf } from '../helpers';

describe('query stages: dedup', () => {
  it('dedup: fields', () => {
    assert.deepEqual(stageOf('dedup host, `user agent`'), { kind: 'dedup', fields: [{ name: 'host' }, { name: 'user agent' }] });
  });
});
