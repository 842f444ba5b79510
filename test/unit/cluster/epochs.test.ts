import { strict as assert } from 'assert';
import fc from 'fast-check';
import { epochAt, epochStartClearOf, membersInForce, nextEpochStart, type RingEpoch } from '../../../node/cluster/epochs';

const HOUR = 3_600_000_000;

describe('ring epochs', () => {
  it('a new epoch starts on the first whole second at least the lead ahead, whatever the bucket span', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 50 }), fc.integer({ min: 0, max: HOUR }), (now, lead) => {
        const start = nextEpochStart(now, lead);
        assert.equal(start % 1_000_000, 0);
        assert.ok(start >= now + lead);
        assert.ok(start < now + lead + 1_000_000);
      }),
    );
  });

  it("starts clear of stored events: one second into the newest event's bucket when that bucket starts at or after the soonest start", () => {
    const soonest = 10 * HOUR + 5_000_000;
    assert.equal(epochStartClearOf(soonest, 0, HOUR), soonest, 'nothing stored');
    assert.equal(epochStartClearOf(soonest, 10 * HOUR + 7_000_000, HOUR), soonest, 'the newest event in the bucket the epoch splits');
    assert.equal(epochStartClearOf(soonest, 12 * HOUR + 30, HOUR), 12 * HOUR + 1_000_000, 'an event two buckets ahead');
    assert.equal(
      epochStartClearOf(11 * HOUR, 11 * HOUR, HOUR),
      11 * HOUR + 1_000_000,
      'an event at the start of the bucket the epoch would start',
    );
  });

  it('places a bucket by the epoch in force at its start', () => {
    const epochs: RingEpoch[] = [
      { epoch: 0, fromMicros: 0, members: ['a'] },
      { epoch: 1, fromMicros: 10 * HOUR, members: ['a', 'b'] },
      { epoch: 2, fromMicros: 12 * HOUR, members: ['a', 'b', 'c'] },
    ];
    assert.equal(epochAt(epochs, 9 * HOUR).epoch, 0);
    assert.equal(epochAt(epochs, 10 * HOUR).epoch, 1);
    assert.equal(epochAt(epochs, 11 * HOUR).epoch, 1);
    assert.equal(epochAt(epochs, 50 * HOUR).epoch, 2);
    // A piece that starts inside a bucket, at an epoch's start, is placed by that epoch.
    const split: RingEpoch[] = [epochs[0]!, { epoch: 1, fromMicros: 10 * HOUR + 1_000_000, members: ['a', 'b'] }];
    assert.equal(epochAt(split, 10 * HOUR).epoch, 0);
    assert.equal(epochAt(split, 10 * HOUR + 1_000_000).epoch, 1);
    assert.throws(() => epochAt([{ epoch: 0, fromMicros: HOUR, members: ['a'] }], 0), /no ring epoch/);
  });

  it('the members that may own a key in a range are those of every epoch in force somewhere in it', () => {
    const epochs: RingEpoch[] = [
      { epoch: 0, fromMicros: 0, members: ['a'] },
      { epoch: 1, fromMicros: 10 * HOUR, members: ['a', 'b'] },
      { epoch: 2, fromMicros: 20 * HOUR + 5_000_000, members: ['a', 'b', 'c'] },
    ];
    const members = (from: number, to: number): string[] => [...membersInForce(epochs, from, to)].sort();
    assert.deepEqual(members(0, 10 * HOUR), ['a'], 'the range ends where epoch 1 starts');
    assert.deepEqual(members(HOUR, 10 * HOUR + 1), ['a', 'b']);
    assert.deepEqual(members(12 * HOUR, 20 * HOUR + 5_000_000), ['a', 'b']);
    assert.deepEqual(members(12 * HOUR, 30 * HOUR), ['a', 'b', 'c'], 'an epoch that starts in the middle of a bucket');
    assert.deepEqual(members(25 * HOUR, 30 * HOUR), ['a', 'b', 'c']);
    assert.deepEqual(members(5 * HOUR, 5 * HOUR), [], 'an empty range');
    // A pending epoch decided after a later-starting one is in force from its own start on.
    const pending: RingEpoch[] = [...epochs, { epoch: 3, fromMicros: 15 * HOUR, members: ['d'] }];
    assert.deepEqual([...membersInForce(pending, 16 * HOUR, 17 * HOUR)], ['d']);
  });
});
