import { strict as assert } from 'assert';
import fc from 'fast-check';
import {
  histogramBucketCount,
  histogramBuckets,
  histogramFilter,
  histogramInterval,
  MAX_LISTED_BUCKETS,
} from '../../../coordinator/histogram';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('coordinator: histogram', () => {
  it('picks the usual interval for a range at 60 buckets', () => {
    const cases: [number, string][] = [
      [MINUTE, '1s'],
      [4 * MINUTE, '5s'],
      [5 * MINUTE, '1m'],
      [HOUR, '1m'],
      [HOUR + 1, '5m'],
      [6 * HOUR, '5m'],
      [7 * HOUR, '15m'],
      [DAY, '15m'],
      [2 * DAY, '1h'],
      [7 * DAY, '1h'],
      [8 * DAY, '6h'],
      [15 * DAY, '6h'],
      [30 * DAY, '1d'],
    ];
    for (const [range, label] of cases) assert.equal(histogramInterval(range, 60).label, label, `${range / MINUTE} minutes`);
  });

  it('scales the range by the bucket target', () => {
    assert.equal(histogramInterval(2 * HOUR, 120).label, histogramInterval(HOUR, 60).label);
    assert.equal(histogramInterval(HOUR, 6).label, '15m');
    assert.equal(histogramInterval(HOUR, 1200).label, '5s');
  });

  it('counts the buckets a range lists before listing them, so a range of centuries is refused before it is built', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4e12 }),
        fc.integer({ min: 1, max: 40 * DAY }),
        fc.integer({ min: 1, max: 1000 }),
        (from, range, target) => {
          const step = histogramInterval(range, target);
          assert.equal(histogramBucketCount(from, from + range, step), histogramBuckets(from, from + range, step, []).length);
        },
      ),
    );
    // The 1d interval over 1,000 years: what GET /histogram?from=-1000y asked for, a third of a million buckets.
    const now = Date.parse('2026-01-01T00:00:00Z');
    const from = now - 1000 * 365.25 * DAY;
    const count = histogramBucketCount(from, now, histogramInterval(now - from, 60));
    assert.ok(count > MAX_LISTED_BUCKETS, `${count} buckets`);
    assert.ok(histogramBucketCount(now - 100 * 365.25 * DAY, now, histogramInterval(100 * 365.25 * DAY, 60)) <= MAX_LISTED_BUCKETS);
  });

  it('reads q as a pipeline, as stages over every index, or as a where expression', () => {
    assert.deepEqual(histogramFilter(undefined), { text: 'from *', prefixLength: 0 });
    assert.deepEqual(histogramFilter('from web | where a = 1'), { text: 'from web | where a = 1', prefixLength: 0 });
    assert.deepEqual(histogramFilter('search timeout'), { text: 'from * | search timeout', prefixLength: 9 });
    assert.deepEqual(histogramFilter('status >= 500'), { text: 'from * | where status >= 500', prefixLength: 15 });
  });

  it('lists every bucket of the range once, aligned, with the counts found', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 * DAY }),
        fc.integer({ min: 1, max: 3 * DAY }),
        fc.integer({ min: 1, max: 200 }),
        (from, length, target) => {
          const to = from + length;
          const step = histogramInterval(length, target);
          const buckets = histogramBuckets(from, to, step, [[new Date(Math.floor(from / step.ms) * step.ms).toISOString(), 3]]);
          const starts = buckets.map((bucket) => Date.parse(bucket.time));
          assert.ok(starts[0]! <= from && from < starts[0]! + step.ms, 'the first bucket holds from');
          assert.ok(starts.at(-1)! < to && to <= starts.at(-1)! + step.ms, 'the last bucket holds the instant before to');
          starts.forEach((start, i) => assert.equal(start, starts[0]! + i * step.ms));
          assert.equal(buckets[0]!.count, 3);
          assert.equal(
            buckets.reduce((sum, bucket) => sum + bucket.count, 0),
            3,
          );
        },
      ),
    );
  });
});
