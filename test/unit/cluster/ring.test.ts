/**
 * Placement on simulated rings of 3 to 100 nodes (node/cluster/ring.ts): every node computes the
 * same owners, keys spread evenly, a join moves about 1/N of new keys and no old key, a removed
 * node owns nothing from its removal on. The spread bounds are statistical: those properties run
 * with a fixed seed, so that a run is reproducible.
 */
import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import path from 'path';
import fc from 'fast-check';
import type { RingEpoch } from '../../../node/cluster/epochs';
import { ownersOf } from '../../../node/cluster/ring';
import { keyString, type PartitionKey } from '../../../storage/core/partition';

const HOUR = 3_600_000_000;
const DAY = 24 * HOUR;
/** 2024-06-01T00:00Z, a bucket boundary. */
const START = 1_717_200_000_000_000;

/** Node ids of one of the shapes operators give (names, hosts, addresses). */
const idShapes: ((i: number, tag: string) => string)[] = [
  (i) => `node-${i}`,
  (i, tag) => `trawl-${tag}-${i}.example.internal`,
  (i) => `10.0.${i >> 8}.${i & 255}:7481`,
  (i, tag) => `${tag}${i * 7919}`,
];
const idsArb = (min: number, max: number): fc.Arbitrary<string[]> =>
  fc
    .tuple(fc.integer({ min, max }), fc.nat({ max: idShapes.length - 1 }), fc.stringMatching(/^[a-z]{1,6}$/))
    .map(([count, shape, tag]) => Array.from({ length: count }, (_, i) => idShapes[shape](i + 1, tag)));

/** `count` distinct keys from `fromMicros` on: indexes, hourly buckets and 16 partitions. */
function keysFrom(count: number, fromMicros: number): PartitionKey[] {
  const keys: PartitionKey[] = [];
  const indexes = ['main', 'web', 'audit'];
  for (let i = 0; keys.length < count; i++) {
    keys.push({ index: indexes[i % 3], bucket: fromMicros + Math.floor(i / 48) * HOUR, partition: Math.floor(i / 3) % 16 });
  }
  return keys;
}

function shuffled<T>(values: readonly T[], seed: number): T[] {
  const out = [...values];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) ^ Math.imul(state ^ (state >>> 12), 0x297a2d39);
    const j = (state >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** How many keys each node is an owner of. */
function loads(keys: readonly PartitionKey[], epochs: readonly RingEpoch[], replicationFactor: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) for (const node of ownersOf(key, epochs, replicationFactor)) counts.set(node, (counts.get(node) ?? 0) + 1);
  return counts;
}

/** Every member's load is within `tolerance` of an even share of `total`. */
function assertEven(counts: Map<string, number>, members: readonly string[], total: number, tolerance: number): void {
  assert.equal(counts.size, members.length, 'every member owns keys');
  const even = total / members.length;
  for (const member of members) {
    const load = counts.get(member) ?? 0;
    assert.ok(
      Math.abs(load / even - 1) <= tolerance,
      `${member} owns ${load} keys, an even share is ${even.toFixed(1)} (${members.length} nodes)`,
    );
  }
}

describe('placement ring', () => {
  it('gives min(replication factor, members) distinct owners, all members of the epoch in force', () => {
    fc.assert(
      fc.property(
        idsArb(1, 8),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 20 }),
        (ids, rf, hours) => {
          const epochs: RingEpoch[] = [
            { epoch: 0, fromMicros: 0, members: ['old-a', 'old-b'] },
            { epoch: 1, fromMicros: START, members: ids },
          ];
          for (const hour of hours) {
            const key = { index: 'main', bucket: START + hour * HOUR, partition: hour % 16 };
            const owners = ownersOf(key, epochs, rf);
            assert.equal(owners.length, Math.min(rf, ids.length));
            assert.equal(new Set(owners).size, owners.length, 'owners are distinct');
            for (const owner of owners) assert.ok(ids.includes(owner), `${owner} is a member of the epoch in force`);
            const before = ownersOf({ ...key, bucket: START - HOUR }, epochs, rf);
            assert.ok(before.every((owner) => owner === 'old-a' || owner === 'old-b'));
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('counts each member once however often it is listed, and places nothing where no epoch is in force', () => {
    const epochs: RingEpoch[] = [{ epoch: 0, fromMicros: START, members: ['a', 'b', 'a', 'b'] }];
    assert.deepEqual([...ownersOf({ index: 'main', bucket: START, partition: 0 }, epochs, 3)].sort(), ['a', 'b']);
    assert.throws(() => ownersOf({ index: 'main', bucket: START - HOUR, partition: 0 }, epochs, 1), /no ring epoch/);
    assert.deepEqual(ownersOf({ index: 'main', bucket: START, partition: 0 }, [{ epoch: 0, fromMicros: 0, members: [] }], 2), []);
    for (const rf of [0, -1, 1.5, Number.NaN])
      assert.throws(() => ownersOf({ index: 'main', bucket: START, partition: 0 }, epochs, rf), /replication factor/);
  });

  it('every node computes the same owners: another process, members and epochs given in another order', () => {
    fc.assert(
      fc.property(
        fc.array(idsArb(3, 30), { minLength: 1, maxLength: 11 }),
        fc.integer({ min: 1, max: 3 }),
        fc.nat(),
        (memberships, rf, seed) => {
          const epochs: RingEpoch[] = memberships.map((members, epoch) => ({
            epoch,
            fromMicros: epoch === 0 ? 0 : START + epoch * DAY,
            members: [...members].sort(),
          }));
          // Keys of every epoch, met in turn and then again in reverse: more rings than a node keeps.
          const keys = epochs.flatMap((epoch) => keysFrom(100, epoch.epoch === 0 ? START - DAY : epoch.fromMicros));
          const here = keys.map((key) => ownersOf(key, epochs, rf));
          assert.deepEqual(
            [...keys].reverse().map((key) => ownersOf(key, epochs, rf)),
            [...here].reverse(),
          );
          // A fresh copy, as another node holds it after a state push: other objects, members in another order.
          const copy: RingEpoch[] = shuffled(epochs, seed).map((epoch) => ({
            ...epoch,
            members: shuffled(epoch.members, seed + epoch.epoch),
          }));
          assert.deepEqual(
            keys.map((key) => ownersOf(key, copy, rf)),
            here,
          );
          // Another process builds its rings from nothing.
          const script = `const { ownersOf } = require(${JSON.stringify(path.join(__dirname, '../../../node/cluster/ring.js'))});
          const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
          process.stdout.write(JSON.stringify(input.keys.map((key) => ownersOf(key, input.epochs, input.rf))));`;
          const elsewhere = JSON.parse(
            execFileSync(process.execPath, ['-e', script], { input: JSON.stringify({ keys, epochs: copy, rf }) }).toString(),
          ) as string[][];
          assert.deepEqual(elsewhere, here);
        },
      ),
      { numRuns: 3 },
    );
  });

  it('spreads keys within 15% of even over 3 to 100 nodes, primaries and replicas alike', () => {
    const check = (ids: string[], rf: number): void => {
      const epochs: RingEpoch[] = [{ epoch: 0, fromMicros: 0, members: ids }];
      const keys = keysFrom(2000 * ids.length, START);
      assertEven(loads(keys, epochs, rf), ids, keys.length * rf, 0.15);
    };
    check(
      Array.from({ length: 3 }, (_, i) => `node-${i + 1}`),
      1,
    );
    check(
      Array.from({ length: 100 }, (_, i) => `node-${i + 1}`),
      1,
    );
    fc.assert(
      fc.property(idsArb(3, 100), fc.integer({ min: 1, max: 2 }), (ids, rf) => check(ids, rf)),
      { numRuns: 2, seed: 19 },
    );
  });

  it('moves about 1/N of new keys when a node joins, all to it, and no key of an older bucket', () => {
    fc.assert(
      fc.property(idsArb(3, 60), fc.integer({ min: 1, max: 3 }), (ids, rf) => {
        const before: RingEpoch[] = [{ epoch: 0, fromMicros: 0, members: ids }];
        const joined = 'joining-node';
        const after: RingEpoch[] = [...before, { epoch: 1, fromMicros: START, members: [...ids, joined] }];
        const newKeys = keysFrom(10_000, START);
        let moved = 0;
        for (const key of newKeys) {
          const was = ownersOf(key, before, rf);
          const is = ownersOf(key, after, rf);
          if (is[0] !== was[0]) {
            moved++;
            assert.equal(is[0], joined, 'a key moves only to the node that joins');
          }
          // Replicas too: the owners change only by taking in the new node.
          if (!is.includes(joined)) assert.deepEqual(is, was);
          else assert.ok(is.every((node) => node === joined || was.includes(node)));
        }
        const share = moved / newKeys.length;
        const even = 1 / (ids.length + 1);
        assert.ok(
          Math.abs(share / even - 1) <= 0.25,
          `${(share * 100).toFixed(2)}% of new keys moved to the new node, 1/N is ${(even * 100).toFixed(2)}%`,
        );
        for (const key of keysFrom(3000, START - 30 * DAY)) assert.deepEqual(ownersOf(key, after, rf), ownersOf(key, before, rf));
      }),
      { numRuns: 4, seed: 7 },
    );
  });

  it('never moves a key of an older epoch, whatever epochs follow', () => {
    const change = fc.record({ join: fc.boolean(), which: fc.nat(), afterDays: fc.integer({ min: 1, max: 30 }) });
    fc.assert(
      fc.property(idsArb(3, 12), fc.array(change, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 3 }), (ids, changes, rf) => {
        const epochs: RingEpoch[] = [{ epoch: 0, fromMicros: 0, members: ids }];
        let members = ids;
        let from = START;
        changes.forEach((step, i) => {
          if (step.join || members.length <= 1) members = [...members, `joined-${i}`];
          else members = members.filter((_, m) => m !== step.which % members.length);
          from += step.afterDays * DAY;
          epochs.push({ epoch: i + 1, fromMicros: from, members });
        });
        // A key is placed for good when the epoch in force at its bucket is decided.
        for (let e = 0; e < epochs.length; e++) {
          const end = e + 1 < epochs.length ? epochs[e + 1].fromMicros : epochs[e].fromMicros + 30 * DAY;
          const start = e === 0 ? START - 10 * DAY : epochs[e].fromMicros;
          const keys = keysFrom(200, start).filter((key) => key.bucket < end);
          assert.ok(keys.length > 0);
          for (const key of keys) {
            const placed = ownersOf(key, epochs.slice(0, e + 1), rf);
            for (let later = e + 2; later <= epochs.length; later++) assert.deepEqual(ownersOf(key, epochs.slice(0, later), rf), placed);
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it('a node taken out of placement owns no key from that epoch on', () => {
    fc.assert(
      fc.property(idsArb(2, 30), fc.nat(), fc.integer({ min: 1, max: 4 }), (ids, which, rf) => {
        const removed = ids[which % ids.length];
        const rest = ids.filter((id) => id !== removed);
        const epochs: RingEpoch[] = [
          { epoch: 0, fromMicros: 0, members: ids },
          { epoch: 1, fromMicros: START, members: rest },
        ];
        const later = keysFrom(1500, START);
        for (const key of later) {
          const owners = ownersOf(key, epochs, rf);
          assert.ok(!owners.includes(removed), `${removed} still owns ${JSON.stringify(key)}`);
          assert.equal(owners.length, Math.min(rf, rest.length));
        }
        // Its old data stays where it was placed.
        const earlier = keysFrom(1500, START - 20 * DAY);
        assert.ok(earlier.some((key) => ownersOf(key, epochs, rf).includes(removed)));
      }),
      { numRuns: 15 },
    );
  });
});

describe('dealt layout', () => {
  const PARTITIONS = 16;
  const dealt = (members: string[], epoch = 0, fromMicros = 0): RingEpoch => ({ epoch, fromMicros, members, layout: 'dealt' });
  /** Every key of `buckets` hourly buckets from START, in `indexes`, with PARTITIONS partitions each. */
  const bucketKeys = (buckets: number, indexes: readonly string[] = ['main']): PartitionKey[][] =>
    indexes.flatMap((index) =>
      Array.from({ length: buckets }, (_, b) =>
        Array.from({ length: PARTITIONS }, (_, partition) => ({ index, bucket: START + b * HOUR, partition })),
      ),
    );

  it('gives every member of a bucket the same number of its partitions, give or take one a copy', () => {
    fc.assert(
      fc.property(idsArb(1, 40), fc.integer({ min: 1, max: 3 }), (ids, rf) => {
        const epochs = [dealt(ids)];
        const copies = Math.min(rf, ids.length);
        for (const keys of bucketKeys(24, ['main', 'web'])) {
          const counts = loads(keys, epochs, rf);
          const low = copies * Math.floor(PARTITIONS / ids.length);
          const high = copies * Math.ceil(PARTITIONS / ids.length);
          for (const id of ids) {
            const count = counts.get(id) ?? 0;
            assert.ok(
              count >= low && count <= high,
              `${id} owns ${count} of ${keys[0].index} ${keys[0].bucket}'s ${PARTITIONS} partitions at RF${rf} (${ids.length} nodes): not in [${low}, ${high}]`,
            );
          }
          for (const key of keys) {
            const owners = ownersOf(key, epochs, rf);
            assert.equal(owners.length, copies);
            assert.equal(new Set(owners).size, copies, 'owners are distinct');
          }
        }
      }),
      { numRuns: 60, seed: 23 },
    );
  });

  it('spreads the partitions left over by a bucket over every member: within 10% of even over many buckets', () => {
    fc.assert(
      fc.property(idsArb(3, 12), fc.integer({ min: 1, max: 2 }), (ids, rf) => {
        const keys = bucketKeys(200, ['main', 'web', 'audit']).flat();
        assertEven(loads(keys, [dealt(ids)], rf), ids, keys.length * rf, 0.1);
      }),
      { numRuns: 20, seed: 5 },
    );
  });

  it('every node computes the same owners: members given in another order, a fresh copy, another process', () => {
    const ids = ['n1', 'n2', 'n3', 'trawl-b.example.internal', '10.0.0.7:7481'];
    const keys = bucketKeys(30, ['main', 'web']).flat();
    const here = keys.map((key) => ownersOf(key, [dealt([...ids].sort())], 2));
    assert.deepEqual(
      keys.map((key) => ownersOf(key, [dealt(shuffled(ids, 3))], 2)),
      here,
    );
    const script = `const { ownersOf } = require(${JSON.stringify(path.join(__dirname, '../../../node/cluster/ring.js'))});
      const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      process.stdout.write(JSON.stringify(input.keys.map((key) => ownersOf(key, input.epochs, 2))));`;
    const elsewhere = JSON.parse(
      execFileSync(process.execPath, ['-e', script], { input: JSON.stringify({ keys, epochs: [dealt(shuffled(ids, 9))] }) }).toString(),
    ) as string[][];
    assert.deepEqual(elsewhere, here);
  });

  it("changes from bucket to bucket which members take a partition, and its primary is not the ring's", () => {
    const ids = ['n1', 'n2', 'n3'];
    const primaries = new Set<string>();
    let unlikeRing = 0;
    for (const keys of bucketKeys(12)) {
      primaries.add(ownersOf(keys[0], [dealt(ids)], 1)[0]);
      for (const key of keys)
        if (ownersOf(key, [dealt(ids)], 1)[0] !== ownersOf(key, [{ epoch: 0, fromMicros: 0, members: ids }], 1)[0]) unlikeRing++;
    }
    assert.equal(primaries.size, 3, 'partition 0 of 12 buckets has each member as its primary in some bucket');
    assert.ok(unlikeRing > 0, 'the dealt layout is not the ring under another name');
  });

  it('refuses a partition that is not a whole number', () => {
    for (const partition of [Number.NaN, 1.5, Infinity]) {
      assert.throws(() => ownersOf({ index: 'main', bucket: START, partition }, [dealt(['a', 'b'])], 1), /a partition is a whole number/);
    }
  });

  it('an epoch without a layout keeps the ring placement, before and after a dealt epoch', () => {
    const members = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5'];
    // Owners the ring gave these keys before layouts existed (pinned: they hold stored data).
    const pinned: [string, number, number, string][] = [
      ['main', 0, 0, 'node-3,node-2,node-5'],
      ['main', 1, 5, 'node-1,node-4,node-3'],
      ['web', 7, 15, 'node-5,node-1,node-4'],
      ['audit', 30, 3, 'node-4,node-5,node-3'],
      ['main', 100, 9, 'node-5,node-4,node-1'],
    ];
    const old: RingEpoch = { epoch: 0, fromMicros: 0, members };
    const epochs = [old, dealt(['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6'], 1, START + 1000 * HOUR)];
    for (const [index, hour, partition, owners] of pinned) {
      const key = { index, bucket: START + hour * HOUR, partition };
      assert.equal(ownersOf(key, [old], 3).join(','), owners, `${keyString(key)} alone`);
      assert.equal(ownersOf(key, epochs, 3).join(','), owners, `${keyString(key)} with a dealt epoch after it`);
    }
    const later = { index: 'main', bucket: START + 1000 * HOUR, partition: 0 };
    assert.deepEqual(ownersOf(later, epochs, 1), ownersOf(later, [dealt(epochs[1].members)], 1), 'the dealt epoch places its own buckets');
  });
});
