import { strict as assert } from 'assert';
import { parseQuery } from '../../../../query/stages';
import { noPos, assertError } from '../helpers';

describe('query stages: from', () => {
  it('from: one or more indexes, globs, backticks, every index', () => {
    const q = noPos(parseQuery('from main, web-*, logs-2024.0?, `my index`'));
    assert.deepEqual(q.stages, [
      {
        kind: 'from',
        indexes: [
          { pattern: 'main', glob: false, quoted: false },
          { pattern: 'web-*', glob: true, quoted: false },
          { pattern: 'logs-2024.0?', glob: true, quoted: false },
          { pattern: 'my index', glob: false, quoted: true },
        ],
      },
    ]);
    assert.deepEqual(noPos(parseQuery('from *').stages[0]), { kind: 'from', indexes: [{ pattern: '*', glob: true, quoted: false }] });
  });

  it('E011 from after the first stage', () => {
    assert.equal(assertError('from main | head 5 | from other', 'E011', 1, 22).suggestion, 'from main, other');
  });
});
