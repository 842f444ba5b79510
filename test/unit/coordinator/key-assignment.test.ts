import { strict as assert } from 'assert';
import fc from 'fast-check';
import { assignKeys, reassignKeys, storageGroupName } from '../../../coordinator/key-assignment';

const NODES = ['n1', 'n2', 'n3', 'n4', 'n5'];

/** Keys with their owners (distinct nodes, in ring order) and which node/key pairs can answer. */
const scenario = fc
  .record({
    keys: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 60 }),
    rf: fc.integer({ min: 1, max: 3 }),
    down: fc.subarray(NODES),
    seed: fc.integer(),
  })
  .map(({ keys, rf, down, seed }) => {
    const owners = new Map(
      keys.map((key, k) => [key, Array.from({ length: rf }, (_, i) => NODES[(Math.abs(seed) + k * 7 + i) % NODES.length])]),
    );
    return { keys, owners, down: new Set(down) };
  });

describe('assigning partition keys to the nodes that answer for them', () => {
  it('asks each key of exactly one usable owner, and calls a key missing only when it has none', () => {
    fc.assert(
      fc.property(scenario, ({ keys, owners, down }) => {
        const usable = (node: string): boolean => !down.has(node);
        const { byNode, missing } = assignKeys(keys, (key) => owners.get(key)!, usable);
        const seen = new Map<string, string>();
        for (const [node, list] of byNode) {
          for (const key of list) {
            assert.ok(!seen.has(key), `${key} asked twice`);
            seen.set(key, node);
            assert.ok(owners.get(key)!.includes(node) && usable(node), `${key} asked of ${node}, not a usable owner`);
          }
        }
        for (const key of keys) {
          const hasUsable = owners.get(key)!.some(usable);
          assert.equal(seen.has(key), hasUsable, key);
          assert.equal(missing.includes(key), !hasUsable, key);
        }
      }),
    );
  });

  it('spreads keys over the replicas and depends only on its inputs', () => {
    const keys = Array.from({ length: 300 }, (_, i) => `main|${i}|0`);
    // Replication 2 over 3 nodes: every pair of nodes owns a third of the keys.
    const pairs = [
      ['n1', 'n2'],
      ['n2', 'n3'],
      ['n3', 'n1'],
    ];
    const owners = (key: string): string[] => pairs[Number(key.split('|')[1]) % 3];
    const { byNode, missing } = assignKeys(keys, owners, () => true);
    assert.deepEqual(missing, []);
    const loads = [...byNode.values()].map((list) => list.length);
    assert.equal(loads.length, 3);
    assert.ok(Math.max(...loads) - Math.min(...loads) <= 2, `loads ${loads}`);
    const again = assignKeys([...keys].reverse(), owners, () => true);
    assert.deepEqual([...again.byNode].sort(), [...byNode].sort());
  });

  it("gives a failed node's keys to the other owners", () => {
    const owners = (key: string): string[] => (key === 'only-a' ? ['a'] : ['a', 'b']);
    const { byNode, missing } = reassignKeys('a', ['k1', 'k2', 'only-a'], owners, () => true);
    assert.deepEqual(byNode.get('b'), ['k1', 'k2']);
    assert.deepEqual(missing, ['only-a']);
    assert.equal(byNode.has('a'), false);
  });

  it('gives the keys of one piece with the same owners to one owner, which stores them in one segment', () => {
    // Replication 2 over 3 nodes, dealt: partition p to node p mod 3 and the next one.
    const nodes = ['n1', 'n2', 'n3'];
    const owners = (key: string): string[] => {
      const partition = Number(key.split('|')[2]);
      return [nodes[partition % 3], nodes[(partition + 1) % 3]];
    };
    const keys = [0, 1, 2, 3].flatMap((bucket) => Array.from({ length: 16 }, (_, p) => `main|${bucket}|${p}`));
    const { byNode, missing } = assignKeys(keys, owners, () => true);
    assert.deepEqual(missing, []);
    const answerer = new Map<string, string>();
    for (const [node, list] of byNode) {
      for (const key of list) {
        const [index, bucket, partition] = key.split('|');
        const group = `${index}|${bucket}|${[...owners(key)].sort().join()}|${Number(partition) % 2}`;
        assert.equal(answerer.get(group) ?? node, node, `${group} is split between ${answerer.get(group)} and ${node}`);
        answerer.set(group, node);
      }
    }
    assert.equal(answerer.size, 4 * 3 * 2, 'three owner sets a bucket, each in two shares');
    const loads = [...byNode.values()].map((list) => list.length);
    assert.equal(loads.length, 3);
    assert.ok(Math.max(...loads) - Math.min(...loads) <= 6, `loads ${loads}`);
    // Both shares of an owner set in a bucket go to one node: it reads one segment of the bucket, not two.
    const setAnswerers = new Map<string, Set<string>>();
    for (const [node, list] of byNode) {
      for (const key of list) {
        const [index, bucket] = key.split('|');
        const set = `${index}|${bucket}|${[...owners(key)].sort().join()}`;
        setAnswerers.set(set, new Set([...(setAnswerers.get(set) ?? []), node]));
      }
    }
    assert.equal(setAnswerers.size, 4 * 3);
    for (const [set, nodesOfSet] of setAnswerers) assert.equal(nodesOfSet.size, 1, `${set} is read by ${[...nodesOfSet]}`);

    // n1 is down: each of its groups goes whole to its other owner.
    const without = assignKeys(keys, owners, (node) => node !== 'n1');
    assert.equal(without.byNode.has('n1'), false);
    assert.equal([...without.byNode.values()].flat().length, keys.length);
  });

  it('spreads one bucket over the shares of one owner set (replication 2 over 2 nodes)', () => {
    const keys = Array.from({ length: 16 }, (_, p) => `main|0|${p}`);
    const owners = (key: string): string[] => (Number(key.split('|')[2]) % 2 === 0 ? ['a', 'b'] : ['b', 'a']);
    const { byNode } = assignKeys(
      keys,
      owners,
      () => true,
      (key) => storageGroupName(Number(key.split('|')[2]), owners(key), 2),
    );
    assert.deepEqual(
      [...byNode.values()].map((list) => list.length),
      [8, 8],
    );
    for (const list of byNode.values())
      assert.equal(new Set(list.map((key) => Number(key.split('|')[2]) % 2)).size, 1, `one share: ${list}`);
  });

  it('assigns a group key by key when no owner can answer for all of it', () => {
    const owners = (): string[] => ['a', 'b'];
    const usable = (node: string, key: string): boolean => (key === 'main|0|2' ? node === 'b' : node === 'a');
    const { byNode, missing } = assignKeys(['main|0|0', 'main|0|2', 'main|0|4'], owners, usable);
    assert.deepEqual(missing, []);
    assert.deepEqual(byNode.get('a'), ['main|0|0', 'main|0|4']);
    assert.deepEqual(byNode.get('b'), ['main|0|2']);
  });
});
