/**
 * The storage group a cluster node flushes a key in (node/cluster/storage-groups.ts): the key's
 * owners, the same for every key of a piece that has them, on every node; none for stored-alone
 * keys, keys before any epoch, or while a member may still coordinate as an older release.
 */
import { strict as assert } from 'assert';
import type { RingEpoch } from '../../../node/cluster/epochs';
import { ownersOf } from '../../../node/cluster/ring';
import { storageGroupOf } from '../../../node/cluster/storage-groups';

const HOUR = 3_600_000_000;
/** 2024-06-01T00:00Z, a bucket boundary. */
const START = 1_717_200_000_000_000;
const EPOCHS: RingEpoch[] = [
  { epoch: 0, fromMicros: START, members: ['a', 'b', 'c'], layout: 'dealt' },
  { epoch: 1, fromMicros: START + 5 * HOUR, members: ['a', 'b', 'c', 'd'], layout: 'dealt' },
];

describe('storage groups of a cluster node', () => {
  it("names a key's group by its owners, sorted, so that the keys of a piece with the same owners share it", () => {
    const groupOf = storageGroupOf(
      () => ({ epochs: EPOCHS }),
      2,
      () => true,
    );
    for (const bucket of [START, START + HOUR, START + 6 * HOUR]) {
      const groups = new Map<string, number[]>();
      for (let partition = 0; partition < 16; partition++) {
        const key = { index: 'main', bucket, partition };
        const group = groupOf(key);
        assert.equal(group, `${[...ownersOf(key, EPOCHS, 2)].sort().join(',')}/0`);
        groups.set(group!, [...(groups.get(group!) ?? []), partition]);
      }
      // Replication 2 over 3 or 4 members: as many owner sets, each holding several partitions.
      assert.equal(groups.size, EPOCHS.filter((epoch) => epoch.fromMicros <= bucket).at(-1)!.members.length);
      assert.ok([...groups.values()].every((partitions) => partitions.length > 1));
    }
  });

  it('splits an owner set in shares by partition where every member owns every partition, so that a bucket spreads', () => {
    const epochs: RingEpoch[] = [{ epoch: 0, fromMicros: START, members: ['a', 'b'], layout: 'dealt' }];
    const groupOf = storageGroupOf(
      () => ({ epochs }),
      2,
      () => true,
    );
    const groups = new Map<string, number[]>();
    for (let partition = 0; partition < 16; partition++) {
      const group = groupOf({ index: 'main', bucket: START, partition })!;
      assert.equal(group, `a,b/${partition % 2}`);
      groups.set(group, [...(groups.get(group) ?? []), partition]);
    }
    assert.deepEqual([...groups.values()].map((partitions) => partitions.length).sort(), [8, 8]);
  });

  it('leaves alone a stored-alone key, a key no epoch places, and every key while a member may coordinate per key', () => {
    let everyMemberGroups = true;
    const groupOf = storageGroupOf(
      () => ({ epochs: EPOCHS }),
      1,
      () => everyMemberGroups,
    );
    assert.equal(groupOf({ index: 'main', bucket: START, partition: -12345 }), null);
    assert.equal(groupOf({ index: 'main', bucket: START - HOUR, partition: 3 }), null);
    assert.equal(
      groupOf({ index: 'main', bucket: START, partition: 3 }),
      `${ownersOf({ index: 'main', bucket: START, partition: 3 }, EPOCHS, 1)[0]}/0`,
    );
    everyMemberGroups = false;
    assert.equal(groupOf({ index: 'main', bucket: START, partition: 3 }), null);
  });
});
