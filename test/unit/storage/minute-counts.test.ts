/** Minute counts of a segment's sorted times, and their merge as compaction folds segments. */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import {
  MAX_COUNTED_MINUTES,
  MINUTE_MICROS,
  mergeMinuteCounts,
  minuteCountsOf,
  type MinuteCounts,
} from '../../../storage/segment/minute-counts';

const BASE = Date.UTC(2026, 0, 5) * 1000;

/** Rows per minute start, as a map, from the times themselves. */
function perMinute(times: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const time of times) {
    const start = Math.floor(time / MINUTE_MICROS) * MINUTE_MICROS;
    out.set(start, (out.get(start) ?? 0) + 1);
  }
  return out;
}

function asMap(counts: MinuteCounts): Map<number, number> {
  const out = new Map<number, number>();
  counts.rows.forEach((rows, i) => {
    if (rows > 0) out.set(counts.first + i * MINUTE_MICROS, rows);
  });
  return out;
}

const timesArb = fc
  .array(fc.integer({ min: -3 * 3600, max: 3 * 3600 }), { minLength: 1, maxLength: 300 })
  .map((seconds) => seconds.map((s) => BASE + s * 1_000_000 + (s % 7) * 1234).sort((a, b) => a - b));

describe('minute counts', () => {
  it('count the rows of each minute', () => {
    fc.assert(
      fc.property(timesArb, (times) => {
        const counts = minuteCountsOf(times, times.length);
        assert.ok(counts !== undefined);
        assert.deepEqual(asMap(counts), perMinute(times));
      }),
    );
  });

  it('merge as the counts of the rows together', () => {
    fc.assert(
      fc.property(fc.array(timesArb, { minLength: 1, maxLength: 4 }), (parts) => {
        const merged = mergeMinuteCounts(parts.map((times) => minuteCountsOf(times, times.length)));
        assert.ok(merged !== undefined);
        assert.deepEqual(asMap(merged), perMinute(parts.flat()));
      }),
    );
  });

  it('are left out for no rows, too long a span, or a part without them', () => {
    assert.equal(minuteCountsOf([], 0), undefined);
    assert.equal(minuteCountsOf([BASE, BASE + (MAX_COUNTED_MINUTES + 1) * MINUTE_MICROS], 2), undefined);
    assert.equal(mergeMinuteCounts([minuteCountsOf([BASE], 1), undefined]), undefined);
  });
});
