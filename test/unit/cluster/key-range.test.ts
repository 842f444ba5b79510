import { strict as assert } from 'assert';
import fc from 'fast-check';
import { epochAt, type RingEpoch } from '../../../node/cluster/epochs';
import { bucketsInRange, epochsInRange, keysInRange, membersInRange } from '../../../node/cluster/key-range';

const HOUR = 3_600_000_000;
const T0 = 1_717_200_000_000_000;

describe('keys and epochs of a time range', () => {
  it('lists the buckets an event time in [from, to) can fall in', () => {
    assert.deepEqual(bucketsInRange(T0 + HOUR / 2, T0 + 3 * HOUR, HOUR), [T0, T0 + HOUR, T0 + 2 * HOUR]);
    assert.deepEqual(bucketsInRange(T0, T0 + 3 * HOUR + 1, HOUR), [T0, T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR]);
    assert.deepEqual(bucketsInRange(T0, T0 + 1, HOUR), [T0]);
    assert.deepEqual(bucketsInRange(T0, T0, HOUR), []);
    assert.deepEqual(bucketsInRange(T0 + HOUR, T0, HOUR), []);
    assert.throws(() => bucketsInRange(0, 1, 0), /bucket span/);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 * HOUR }), fc.integer({ min: 1, max: 10 * HOUR }), fc.integer({ min: 60_000_000, max: 3 * HOUR }), (from, length, span) => {
        const buckets = bucketsInRange(from, from + length, span);
        // The buckets of the first and the last microsecond of the range, and every one between.
        const first = from - (from % span);
        const last = from + length - 1 - ((from + length - 1) % span);
        assert.equal(buckets.length, (last - first) / span + 1);
        buckets.forEach((bucket, i) => assert.equal(bucket, first + i * span));
      }),
    );
  });

  it('lists every partition key of each index once, buckets ascending, then index by index', () => {
    const keys = keysInRange(['web', 'main', 'web'], T0 + 10, T0 + HOUR + 10, HOUR, 3);
    assert.deepEqual(
      keys.map((key) => `${key.index}|${(key.bucket - T0) / HOUR}|${key.partition}`),
      ['web|0|0', 'web|0|1', 'web|0|2', 'main|0|0', 'main|0|1', 'main|0|2', 'web|1|0', 'web|1|1', 'web|1|2', 'main|1|0', 'main|1|1', 'main|1|2'],
    );
    assert.deepEqual(keysInRange(['main'], T0, T0 + HOUR, HOUR, 1), [{ index: 'main', bucket: T0, partition: 0 }]);
    assert.deepEqual(keysInRange(['main'], T0, T0, HOUR, 16), []);
    assert.deepEqual(keysInRange([], T0, T0 + HOUR, HOUR, 16), []);
    assert.throws(() => keysInRange(['main'], T0, T0 + HOUR, HOUR, 0), /partitions/);
    // All of time since 1970 in hours, unclamped: an error rather than millions of keys.
    assert.throws(() => keysInRange(['main'], 0, T0, HOUR, 16), RangeError);
    assert.throws(() => bucketsInRange(0, T0, 1000), RangeError);
    assert.equal(keysInRange(['main'], T0 - 365 * 24 * HOUR, T0, HOUR, 16).length, 365 * 24 * 16);
  });

  it('finds the epochs that place some bucket of the range, as epochAt places each bucket', () => {
    const epochsArb = fc
      .array(fc.record({ startHour: fc.integer({ min: 0, max: 40 }), members: fc.subarray(['a', 'b', 'c', 'd', 'e'], { minLength: 1 }) }), { minLength: 1, maxLength: 5 })
      .map((list) => list.map((entry, epoch): RingEpoch => ({ epoch, fromMicros: epoch === 0 ? 0 : T0 + entry.startHour * HOUR, members: entry.members })));
    fc.assert(
      fc.property(epochsArb, fc.integer({ min: -5 * HOUR, max: 45 * HOUR }), fc.integer({ min: 0, max: 12 * HOUR }), (epochs, offset, length) => {
        const from = T0 + offset;
        const to = from + length;
        const want = new Map<number, RingEpoch>();
        // An empty range holds no bucket.
        for (let bucket = from - (from % HOUR); bucket < to && from < to; bucket += HOUR) {
          const epoch = epochAt(epochs, bucket);
          want.set(epoch.epoch, epoch);
        }
        const got = epochsInRange(epochs, from, to, HOUR);
        assert.deepEqual(
          got.map((epoch) => epoch.epoch),
          [...want.keys()].sort((a, b) => a - b),
        );
        const members = new Set([...want.values()].flatMap((epoch) => epoch.members));
        assert.deepEqual(membersInRange(epochs, from, to, HOUR), [...members].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('a range before the first epoch has no epoch and no members', () => {
    const epochs: RingEpoch[] = [{ epoch: 0, fromMicros: T0, members: ['a'] }];
    assert.deepEqual(epochsInRange(epochs, T0 - 5 * HOUR, T0, HOUR), []);
    assert.deepEqual(membersInRange(epochs, T0 - 5 * HOUR, T0 + 1, HOUR), ['a']);
  });
});
