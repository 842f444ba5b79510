import { strict as assert } from 'assert';
import { stageOf } from '../helpers';

describe('query stages: drop', () => {
  it('drop: names and globs in order', () => {
    assert.deepEqual(stageOf('drop tmp_*, a?'), {
      kind: 'drop',
      fields: [
        { pattern: 'tmp_*', glob: true, quoted: false },
        { pattern: 'a?', glob: true, quoted: false },
      ],
    });
  });
});
