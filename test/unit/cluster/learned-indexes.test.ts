import { strict as assert } from 'assert';
import { LearnedIndexNames } from '../../../node/cluster/learned-indexes';

describe('index names learnt from refusals', () => {
  it('keeps a name for its time from when it was last learnt, then forgets it', () => {
    const names = new LearnedIndexNames(1_000, 10);
    names.learn(['app-new'], 0);
    names.learn(['web'], 500);
    assert.deepEqual(names.current(999), ['app-new', 'web']);
    assert.deepEqual(names.current(1_000), ['web']);
    names.learn(['app-new'], 1_200);
    assert.deepEqual(names.current(1_499), ['web', 'app-new']);
    assert.deepEqual(names.current(1_500), ['app-new']);
    assert.deepEqual(names.current(2_200), []);
  });

  it('leaves out what is not an index name, and keeps the newest names within its bound', () => {
    const names = new LearnedIndexNames(60_000, 2);
    names.learn(['a|b', '', 'Upper', '_audit', '..', 'x'.repeat(129)], 0);
    assert.deepEqual(names.current(0), []);
    names.learn(['one', 'two', 'three'], 1);
    assert.deepEqual(names.current(1), ['two', 'three']);
  });
});
