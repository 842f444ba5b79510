import { strict as assert } from 'assert';
import { stageOf } from '../helpers';

describe('query stages: rename', () => {
  it('rename: pairs', () => {
    assert.deepEqual(stageOf('rename a as b, `c d` as e'), {
      kind: 'rename',
      renames: [
        { from: { name: 'a' }, to: { name: 'b' } },
        { from: { name: 'c d' }, to: { name: 'e' } },
      ],
    });
  });
});
