import { strict as assert } from 'assert';
import { and, bin, f, n, s, stageOf } from '../helpers';

describe('query stages: where', () => {
  it('where', () => {
    assert.deepEqual(stageOf('where status >= 500 and host != "web-3"'), {
      kind: 'where',
      expr: and(bin('>=', f('status'), n(500)), bin('!=', f('host'), s('web-3'))),
    });
  });
});
