/**
 * A fragment's keys as runs (node/cluster/key-runs.ts): the runs stand for exactly the keys they
 * were made of, a long range of a node's few partitions a bucket makes few runs, and a callee
 * checks runs as it checks a client's input, counting their keys before it makes any.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { KeyRun } from '../../../node/cluster/grpc/messages';
import { keysFromRuns, keysToRuns } from '../../../node/cluster/key-runs';

const HOUR = 3_600_000_000;
const T0 = 1_717_200_000_000_000;

/** Keys as storage/core/partition.ts keyString writes them; a stored-alone key has a negative partition. */
const key = fc
  .tuple(fc.constantFrom('main', 'web-logs', 'a.b', '_audit'), fc.integer({ min: -1e15, max: 9e15 }), fc.integer({ min: -3, max: 4095 }))
  .map(([index, bucket, partition]) => `${index}|${bucket}|${partition}`);

describe('key runs', () => {
  it('stand for exactly the keys they were made of', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), (keys) => {
        const back = keysFromRuns(keysToRuns(keys), 1_000_000);
        assert.deepEqual([...back].sort(), [...new Set(keys)].sort());
        assert.equal(back.length, new Set(back).size, 'no key twice');
      }),
    );
  });

  it('write a week of the partitions a node holds of each hour bucket as one run per partition set', () => {
    const keys: string[] = [];
    // Two sets of partitions alternating by bucket, as a placement that deals them might give a node.
    for (let hour = 0; hour < 168; hour++) {
      const partitions = hour % 2 === 0 ? [0, 3, 7, 12, 15] : [1, 4, 8, 13];
      for (const partition of partitions) keys.push(`main|${T0 + hour * HOUR}|${partition}`);
    }
    const runs = keysToRuns(keys);
    assert.equal(runs.length, 2);
    assert.deepEqual(
      runs.map((run) => [run.index, run.buckets.length, run.partitions]),
      [
        ['main', 84, [0, 3, 7, 12, 15]],
        ['main', 84, [1, 4, 8, 13]],
      ],
    );
    assert.deepEqual(keysFromRuns(runs, 1_000_000).sort(), [...keys].sort());
  });

  it('are refused with a reason when a run is not keys', () => {
    const run = (over: Partial<KeyRun>): KeyRun[] => [{ index: 'main', buckets: [T0], partitions: [0], ...over }];
    assert.throws(() => keysFromRuns(run({ index: 'a|b' }), 10), /not an index name/);
    assert.throws(() => keysFromRuns(run({ index: '' }), 10), /not an index name/);
    assert.throws(() => keysFromRuns(run({ index: 'x'.repeat(129) }), 10), /not an index name/);
    assert.throws(() => keysFromRuns(run({ buckets: [1.5] }), 10), /bucket 1.5/);
    assert.throws(() => keysFromRuns(run({ buckets: [1e16] }), 10), /bucket/);
    assert.throws(() => keysFromRuns(run({ buckets: [Number.NaN] }), 10), /bucket/);
    assert.throws(() => keysFromRuns(run({ partitions: [0.5] }), 10), /partition 0.5/);
    assert.deepEqual(keysFromRuns(run({ partitions: [-1] }), 10), [`main|${T0}|-1`]);
  });

  it('count their keys before making any: a run of a trillion keys is refused at once', () => {
    const buckets = Array.from({ length: 1_000_000 }, (_, i) => T0 + i * HOUR);
    const partitions = Array.from({ length: 1_000_000 }, (_, i) => i);
    assert.throws(() => keysFromRuns([{ index: 'main', buckets, partitions }], 1_000_000), /more than 1000000 keys/);
    assert.throws(
      () =>
        keysFromRuns(
          [
            { index: 'main', buckets: [T0, T0 + HOUR], partitions: [0, 1] },
            { index: 'main', buckets: [T0 + 2 * HOUR], partitions: [0] },
          ],
          4,
        ),
      /more than 4 keys/,
    );
  });
});
