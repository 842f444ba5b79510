import { strict as assert } from 'assert';
import { stageOf } from '../helpers';

describe('query stages: keep', () => {
  it('keep: names and globs in order', () => {
    assert.deepEqual(stageOf('keep _time, host, http.*, `user agent`'), {
      kind: 'keep',
      fields: [
        { pattern: '_time', glob: false, quoted: false },
        { pattern: 'host', glob: false, quoted: false },
        { pattern: 'http.*', glob: true, quoted: false },
        { pattern: 'user agent', glob: false, quoted: true },
      ],
    });
  });
});
