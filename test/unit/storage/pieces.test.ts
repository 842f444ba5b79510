/**
 * Pieces of a bucket (partition.ts): a split inside a bucket starts a piece that runs to the next
 * split or the bucket's end; every time falls in exactly one piece, and chunks never cross one.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import { bucketOf, pieceEnd, pieceOf, piecesOfBucket, splitsOf, type Placement } from '../../../storage/core/partition';

const HOUR = 3_600_000_000;
const T0 = 1_717_200_000_000_000;

const placementArb = fc
  .record({ span: fc.constantFrom(10_000_000, HOUR), starts: fc.array(fc.integer({ min: 0, max: 30 * HOUR }), { maxLength: 6 }) })
  .map(({ span, starts }): Placement => ({
    bucketSpanMicros: span,
    partitions: 4,
    splits: splitsOf(
      starts.map((start) => T0 + start),
      span,
    ),
  }));

describe('pieces of a bucket', () => {
  it('puts every time in the one piece that starts at its bucket or the last split before it, and ends at the next', () => {
    fc.assert(
      fc.property(placementArb, fc.integer({ min: 0, max: 31 * HOUR }), (placement, offset) => {
        const time = T0 + offset;
        const start = pieceOf(time, placement);
        const end = pieceEnd(start, placement);
        const bucket = bucketOf(time, placement.bucketSpanMicros);
        assert.ok(bucket <= start && start <= time && time < end && end <= bucket + placement.bucketSpanMicros);
        const pieces = piecesOfBucket(bucket, placement);
        assert.ok(pieces.includes(start), 'a piece of its bucket');
        // No split lies strictly inside the piece.
        assert.ok(!(placement.splits ?? []).some((split) => split > start && split < end));
        assert.equal(pieceOf(end - 1, placement), start, 'the piece runs to its end');
      }),
      { numRuns: 500 },
    );
  });

  it('keeps splits that fall inside buckets only, ascending and once', () => {
    assert.deepEqual(splitsOf([T0 + 5, 0, T0 + HOUR, T0 + 5, T0 + 3], HOUR), [T0 + 3, T0 + 5]);
    assert.deepEqual(piecesOfBucket(T0, { bucketSpanMicros: HOUR, partitions: 1, splits: [T0 - 1, T0 + 3, T0 + HOUR] }), [T0, T0 + 3]);
  });

  it('chunks never cross a split: each chunk holds times of its own piece only', () => {
    fc.assert(
      fc.property(
        placementArb,
        fc.array(fc.integer({ min: 0, max: 31 * HOUR }), { minLength: 1, maxLength: 200 }),
        (placement, offsets) => {
          const events = offsets.map((offset, i) => ({ time: T0 + offset, raw: `e${i}`, index: 'main', fields: { host: `h${i % 5}` } }));
          const chunks = chunkEvents(events, placement);
          assert.equal(
            chunks.reduce((sum, chunk) => sum + chunk.count, 0),
            events.length,
          );
          for (const chunk of chunks) {
            const end = pieceEnd(chunk.key.bucket, placement);
            for (const time of chunk.times)
              assert.ok(time >= chunk.key.bucket && time < end && pieceOf(time, placement) === chunk.key.bucket);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
