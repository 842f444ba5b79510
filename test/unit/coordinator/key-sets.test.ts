/** A fragment's keys as a set: made once for a frozen (kept) list, anew for any other. */
import { strict as assert } from 'assert';
import { keySetOf } from '../../../coordinator/key-sets';

describe('key sets of fragments', () => {
  it('makes the set of a frozen list once and of any other list each time, with exactly its keys', () => {
    const kept = Object.freeze(['main|0|1', 'main|0|2', 'main|3600000000|1']);
    const set = keySetOf(kept);
    assert.deepEqual([...set], kept);
    assert.equal(keySetOf(kept), set);
    const changing = ['main|0|1'];
    const before = keySetOf(changing);
    changing.push('main|0|2');
    const after = keySetOf(changing);
    assert.notEqual(after, before);
    assert.deepEqual([...after], changing);
    assert.deepEqual([...keySetOf(Object.freeze([]))], []);
  });
});
