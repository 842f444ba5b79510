import { strict as assert } from 'assert';
import fc from 'fast-check';
import { bucketsInRange, keysInRange } from '../../../node/cluster/key-range';

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
      fc.property(
        fc.integer({ min: 0, max: 50 * HOUR }),
        fc.integer({ min: 1, max: 10 * HOUR }),
        fc.integer({ min: 60_000_000, max: 3 * HOUR }),
        (from, length, span) => {
          const buckets = bucketsInRange(from, from + length, span);
          // The buckets of the first and the last microsecond of the range, and every one between.
          const first = from - (from % span);
          const last = from + length - 1 - ((from + length - 1) % span);
          assert.equal(buckets.length, (last - first) / span + 1);
          buckets.forEach((bucket, i) => assert.equal(bucket, first + i * span));
        },
      ),
    );
  });

  it('lists every partition key of each index once, buckets ascending, then index by index', () => {
    const keys = keysInRange(['web', 'main', 'web'], T0 + 10, T0 + HOUR + 10, HOUR, 3);
    assert.deepEqual(
      keys.map((key) => `${key.index}|${(key.bucket - T0) / HOUR}|${key.partition}`),
      [
        'web|0|0',
        'web|0|1',
        'web|0|2',
        'main|0|0',
        'main|0|1',
        'main|0|2',
        'web|1|0',
        'web|1|1',
        'web|1|2',
        'main|1|0',
        'main|1|1',
        'main|1|2',
      ],
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

  it('lists every piece of a bucket that a split crosses, from the bucket start, whatever part of the bucket the range covers', () => {
    const split = T0 + HOUR + HOUR / 4;
    // The range starts after the split: the piece before it may still hold events past it.
    const keys = keysInRange(['main'], split + 10, split + 20, HOUR, 2, [T0 + HOUR / 2 + 1, split, T0 + 5 * HOUR]);
    assert.deepEqual(
      keys.map((key) => `${key.bucket - T0}|${key.partition}`),
      [`${HOUR}|0`, `${HOUR}|1`, `${split - T0}|0`, `${split - T0}|1`],
    );
  });
});
