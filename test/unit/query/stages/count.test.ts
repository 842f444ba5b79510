import { strict as assert } from 'assert';
import { stagesOf } from '../helpers';

describe('query stages: the count of head, tail and top', () => {
  it('head and tail: count, default 10', () => {
    assert.deepEqual(stagesOf('head | head 5 | tail | tail 1e3'), [
      { kind: 'head', count: 10 },
      { kind: 'head', count: 5 },
      { kind: 'tail', count: 10 },
      { kind: 'tail', count: 1000 },
    ]);
  });
});
