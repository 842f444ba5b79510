/**
 * A request's chunks by placement key (KeyedChunks): whatever order events come in, alternating
 * partitions, indexes, buckets and the pieces a split makes, each event goes to the one chunk of
 * its key, and a key's chunk is made once. The expected key is worked out here from the
 * placement's own rules: the bucket start, or the last split at or before the event inside it.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { KeyedChunks } from '../../../storage/core/request-placement';
import type { PartitionKey, Placement } from '../../../storage/core/partition';
import { fuzzRuns } from '../../helpers/fuzz';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;
/** Four hours, the third split twice inside. */
const SPLITS = [BASE + 2 * HOUR + 600_000_000, BASE + 2 * HOUR + 1_800_000_000];
const PLACEMENT: Placement = { bucketSpanMicros: HOUR, partitions: 16, splits: SPLITS };

/** The start of the event's piece, from the rules rather than from the code under test. */
function expectedPiece(time: number): number {
  const bucket = BASE + Math.floor((time - BASE) / HOUR) * HOUR;
  const inside = SPLITS.filter((split) => split > bucket && split <= time && split < bucket + HOUR);
  return inside.length === 0 ? bucket : inside[inside.length - 1]!;
}

describe('a request’s chunks by key', () => {
  it('puts each event in the one chunk of its key, made once, in whatever order they come', () => {
    const event = fc.record({
      index: fc.constantFrom('main', 'web', 'main2'),
      time: fc.integer({ min: BASE, max: BASE + 4 * HOUR - 1 }),
      partition: fc.integer({ min: 0, max: PLACEMENT.partitions - 1 }),
    });
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 200 }), (events) => {
        const made: PartitionKey[] = [];
        const chunks = new KeyedChunks(PLACEMENT, (key) => {
          made.push(key);
          return { key, events: 0 };
        });
        const byKey = new Map<string, { key: PartitionKey; events: number }>();
        for (const { index, time, partition } of events) {
          const chunk = chunks.chunkFor(index, time, partition);
          const expected = { index, bucket: expectedPiece(time), partition };
          assert.deepEqual(chunk.key, expected);
          const name = `${index}|${expected.bucket}|${partition}`;
          const seen = byKey.get(name);
          if (seen === undefined) byKey.set(name, chunk);
          else assert.equal(chunk, seen, `one chunk for ${name}`);
          chunk.events++;
          assert.equal(chunks.last, chunk);
        }
        assert.equal(made.length, byKey.size, 'each key made once');
        assert.equal(chunks.size, byKey.size);
        assert.equal(
          [...chunks.values()].reduce((sum, chunk) => sum + chunk.events, 0),
          events.length,
        );
      }),
      { numRuns: fuzzRuns(500) },
    );
  });
});
