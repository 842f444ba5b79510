import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { RingEpoch } from '../../../node/cluster/epochs';
import { assignReads, keysByOwner } from '../../../node/cluster/key-owners';
import { keysInRange } from '../../../node/cluster/key-range';
import { ownersOf } from '../../../node/cluster/ring';
import { keyString, type PartitionKey } from '../../../storage/partition';

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

  it('asks each key of exactly one usable owner, spread over the replicas', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.subarray(NODES), fc.nat(), (rf, down, seed) => {
        // Besides the nodes down, one node catching up on hints is unusable for some keys.
        const catchingUp = NODES[seed % NODES.length];
        const pending = (key: PartitionKey): boolean => key.partition % 4 === seed % 4;
        const usable = (node: string, key: PartitionKey): boolean => !down.includes(node) && !(node === catchingUp && pending(key));
        const { byNode, unowned } = assignReads(KEYS, EPOCHS, rf, usable);
        const asked = new Map<string, string>();
        for (const [node, keys] of byNode) {
          for (const key of keys) {
            assert.ok(!asked.has(keyString(key)), 'a key is asked once');
            asked.set(keyString(key), node);
            assert.ok(ownersOf(key, EPOCHS, rf).includes(node), 'of one of its owners');
            assert.ok(usable(node, key), 'that may be asked');
          }
        }
        assert.equal(asked.size + unowned.length, KEYS.length);
        for (const key of unowned) assert.ok(ownersOf(key, EPOCHS, rf).every((node) => !usable(node, key)));
      }),
      { numRuns: 100 },
    );
  });

  it('spreads reads evenly when every node owns every key, and retries a failed node on the others', () => {
    const all: RingEpoch[] = [{ epoch: 0, fromMicros: 0, members: ['a', 'b', 'c'] }];
    const keys = KEYS.slice(0, 999);
    const { byNode, unowned } = assignReads(keys, all, 3, () => true);
    assert.deepEqual(unowned, []);
    assert.deepEqual([...byNode.values()].map((list) => list.length), [333, 333, 333]);
    const failed = byNode.get('b') as PartitionKey[];
    const retry = assignReads(failed, all, 3, (node) => node !== 'b');
    assert.deepEqual([...retry.byNode.keys()].sort(), ['a', 'c']);
    assert.equal([...retry.byNode.values()].reduce((sum, list) => sum + list.length, 0), 333);
    assert.deepEqual(assignReads(keys, all, 3, () => false).unowned.length, 999);
  });
});
