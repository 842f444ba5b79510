import { strict as assert } from 'assert';
import type { RingEpoch } from '../../../node/cluster/epochs';
import { keysByOwner } from '../../../node/cluster/key-owners';
import { keysInRange } from '../../../node/cluster/key-range';
import { ownersOf } from '../../../node/cluster/ring';

const HOUR = 3_600_000_000;
const T0 = 1_717_200_000_000_000;
const NODES = ['n1', 'n2', 'n3', 'n4', 'n5'];
const EPOCHS: RingEpoch[] = [
  { epoch: 0, fromMicros: 0, members: ['n1', 'n2', 'n3'] },
  { epoch: 1, fromMicros: T0 + 24 * HOUR, members: NODES },
];
/** Two days of keys: the first placed by three nodes, the second by five. */
const KEYS = keysInRange(['main', 'web'], T0, T0 + 48 * HOUR, HOUR, 16);

describe('keys by owner', () => {
  it('gives a write every owner of each of its keys', () => {
    for (const rf of [1, 2, 3]) {
      const byNode = keysByOwner(KEYS, EPOCHS, rf);
      let entries = 0;
      for (const [node, keys] of byNode) {
        entries += keys.length;
        for (const key of keys) assert.ok(ownersOf(key, EPOCHS, rf).includes(node));
      }
      assert.equal(entries, KEYS.length * rf);
      assert.deepEqual([...byNode.keys()].sort(), NODES);
    }
  });
});
