/**
 * A partial answer's ranges: each missing key stands for its index from its bucket value to the
 * end of the placement bucket holding it; ranges of one index that touch or overlap merge, cut to
 * the query's range, and the list is bounded with the total told.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { describeMissing, missingSpans } from '../../../coordinator/missing-ranges';

const HOUR = 3600 * 1_000_000;
/** 2024-11-21T10:00:00Z in microseconds. */
const T0 = Date.UTC(2024, 10, 21, 10) * 1000;
const iso = (micros: number): string => new Date(micros / 1000).toISOString();
const key = (index: string, bucket: number, partition = 0): string => `${index}|${bucket}|${partition}`;

describe('missing ranges of a partial answer', () => {
  it('merges adjacent buckets of an index into one range, keeps gaps and indexes apart', () => {
    const keys = [key('main', T0 + HOUR, 3), key('main', T0, 1), key('main', T0, 2), key('main', T0 + 3 * HOUR), key('audit', T0 + HOUR)];
    assert.deepEqual(missingSpans(keys, HOUR, 0, Infinity), [
      { index: 'audit', fromMicros: T0 + HOUR, toMicros: T0 + 2 * HOUR },
      { index: 'main', fromMicros: T0, toMicros: T0 + 2 * HOUR },
      { index: 'main', fromMicros: T0 + 3 * HOUR, toMicros: T0 + 4 * HOUR },
    ]);
  });

  it('takes a key starting inside a bucket (a split bucket) to the end of that bucket, and reads negative partitions', () => {
    const split = T0 + HOUR / 4;
    assert.deepEqual(missingSpans([key('main', split, -1)], HOUR, 0, Infinity), [
      { index: 'main', fromMicros: split, toMicros: T0 + HOUR },
    ]);
    // The part after the split and the next bucket touch: one range.
    assert.deepEqual(missingSpans([key('main', split, -2), key('main', T0 + HOUR, 5)], HOUR, 0, Infinity), [
      { index: 'main', fromMicros: split, toMicros: T0 + 2 * HOUR },
    ]);
    // The whole bucket and a key inside it: the whole bucket.
    assert.deepEqual(missingSpans([key('main', split), key('main', T0)], HOUR, 0, Infinity), [
      { index: 'main', fromMicros: T0, toMicros: T0 + HOUR },
    ]);
  });

  it('cuts the ranges to the query range and drops a key wholly outside it', () => {
    const from = T0 + HOUR / 2;
    const to = T0 + HOUR + HOUR / 3;
    assert.deepEqual(missingSpans([key('main', T0), key('main', T0 + HOUR), key('main', T0 + 2 * HOUR)], HOUR, from, to), [
      { index: 'main', fromMicros: from, toMicros: to },
    ]);
  });

  it('names the owners of the missing keys and ISO times, and lists at most the bound, saying so', () => {
    const owners: Record<string, string[]> = { [key('main', T0)]: ['node3'], [key('main', T0 + HOUR)]: ['node3', 'node1'] };
    const detail = describeMissing(Object.keys(owners), (each) => owners[each]!, HOUR, 0, Infinity);
    assert.deepEqual(detail, {
      nodes: ['node1', 'node3'],
      ranges: [{ index: 'main', from: '2024-11-21T10:00:00.000Z', to: '2024-11-21T12:00:00.000Z' }],
      ranges_total: 1,
      truncated: false,
    });
    // Every other hour of 120: 60 ranges, 10 listed.
    const gappy = Array.from({ length: 60 }, (_, i) => key('main', T0 + 2 * i * HOUR));
    const cut = describeMissing(gappy, () => ['node2'], HOUR, 0, Infinity, 10);
    assert.equal(cut.ranges.length, 10);
    assert.equal(cut.ranges_total, 60);
    assert.equal(cut.truncated, true);
    assert.deepEqual(cut.ranges[9], { index: 'main', from: iso(T0 + 18 * HOUR), to: iso(T0 + 19 * HOUR) });
  });

  it('covers exactly the instants some key covers within the range, with ranges apart and in order (property)', () => {
    const span = 10;
    const keyArb = fc.record({
      index: fc.constantFrom('a', 'b'),
      bucket: fc.integer({ min: 0, max: 200 }),
      partition: fc.integer({ min: -3, max: 3 }),
    });
    fc.assert(
      fc.property(fc.array(keyArb, { maxLength: 30 }), fc.integer({ min: 0, max: 220 }), fc.integer({ min: 0, max: 220 }), (keys, a, b) => {
        const [from, to] = [Math.min(a, b), Math.max(a, b)];
        const spans = missingSpans(
          keys.map((each) => key(each.index, each.bucket, each.partition)),
          span,
          from,
          to,
        );
        for (const index of ['a', 'b']) {
          const mine = spans.filter((each) => each.index === index);
          for (let i = 1; i < mine.length; i++)
            assert.ok(mine[i]!.fromMicros > mine[i - 1]!.toMicros, 'ranges of an index are apart and in order');
          for (let t = 0; t < 230; t++) {
            const byKeys =
              t >= from &&
              t < to &&
              keys.some((each) => each.index === index && t >= each.bucket && t < Math.floor(each.bucket / span) * span + span);
            const byRanges = mine.some((each) => t >= each.fromMicros && t < each.toMicros);
            assert.equal(byRanges, byKeys, `${index} at ${t}`);
          }
        }
      }),
    );
  });
});
