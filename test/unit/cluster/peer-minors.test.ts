/** What the master knows of its peers' protocol versions before it decides an epoch's layout (peer-minors.ts). */
import { strict as assert } from 'assert';
import { PeerMinors } from '../../../node/cluster/peer-minors';

describe('peer protocol minors', () => {
  it('every peer must have been heard at the minor or later; a later major counts, one never heard does not', () => {
    const minors = new PeerMinors();
    assert.ok(minors.allAtLeast([], 4), 'a master alone');
    minors.heard('a', { major: 1, minor: 4 });
    minors.heard('b', { major: 2, minor: 0 });
    minors.heard('c', null);
    assert.ok(minors.allAtLeast(['a', 'b'], 4));
    assert.ok(!minors.allAtLeast(['a', 'c'], 4), 'c sent no version');
    assert.ok(!minors.has('c'));
    minors.heard('a', { major: 1, minor: 3 });
    assert.ok(!minors.allAtLeast(['a'], 4), 'what a peer spoke last counts: a downgrade too');
  });
});
