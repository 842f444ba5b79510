import { strict as assert } from 'assert';
import fc from 'fast-check';
import { epochAt, nextEpochStart, type RingEpoch } from '../../../node/cluster/epochs';

const HOUR = 3_600_000_000;

describe('ring epochs', () => {
  it('a new epoch starts on a bucket boundary at least a bucket and the lead ahead', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 50 }), fc.integer({ min: 1, max: 10 * HOUR }), fc.integer({ min: 0, max: HOUR }), (now, span, lead) => {
        const start = nextEpochStart(now, span, lead);
        assert.equal(start % span, 0);
        assert.ok(start >= now + span + lead);
        assert.ok(start < now + 2 * span + lead);
      }),
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
    assert.throws(() => epochAt([{ epoch: 0, fromMicros: HOUR, members: ['a'] }], 0), /no ring epoch/);
  });
});
