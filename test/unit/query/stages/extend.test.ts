import { strict as assert } from 'assert';
import { bin, f, n, stageOf } from '../helpers';

describe('query stages: extend', () => {
  it('extend: several assignments, backtick names', () => {
    assert.deepEqual(stageOf('extend ms = duration * 1000, `slow one` = ms > 250'), {
      kind: 'extend',
      assignments: [
        { name: 'ms', expr: bin('*', f('duration'), n(1000)) },
        { name: 'slow one', expr: bin('>', f('ms'), n(250)) },
      ],
    });
  });
});
