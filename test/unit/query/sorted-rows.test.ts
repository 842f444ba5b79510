import { strict as assert } from 'assert';
import fc from 'fast-check';
import { compareKeyed, mergeSorted, SortedRows, type KeyedRow } from '../../../query/exec/sorted-rows';
import type { Value } from '../../../query/value';

const valueArb: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom('a', 'b', '10', '9', 'B'),
  fc.boolean(),
);

/** Rows with distinct times (the tie-break), in newest-first order as a scan hands them over. */
const rowsArb = (keys: number) =>
  fc
    .uniqueArray(fc.integer({ min: 0, max: 10_000 }), { maxLength: 200 })
    .chain((times) =>
      fc
        .tuple(...times.map(() => fc.array(valueArb, { minLength: keys, maxLength: keys })))
        .map((keyLists) => times.map((time, i): KeyedRow => ({ time, keys: keyLists[i], row: { time } })).sort((a, b) => b.time - a.time)),
    );

const directionsArb = fc.array(fc.constantFrom<'asc' | 'desc'>('asc', 'desc'), { minLength: 1, maxLength: 2 });

describe('sorted rows (sort | head N as a bounded top-N)', () => {
  it('keeps exactly the first N rows of a stable sort of the newest-first rows', () => {
    fc.assert(
      fc.property(
        directionsArb.chain((directions) => fc.tuple(fc.constant(directions), rowsArb(directions.length), fc.integer({ min: 0, max: 30 }))),
        ([directions, rows, capacity]) => {
          const kept = new SortedRows(directions, capacity);
          for (const row of rows) if (kept.accepts(row.keys, row.time)) kept.push(row);
          // The reference: a stable sort by the keys alone keeps the newest-first order of ties.
          const reference = [...rows].sort((a, b) => compareKeyed(directions, { ...a, time: 0 }, { ...b, time: 0 })).slice(0, capacity);
          assert.deepEqual(
            kept.sorted().map((row) => row.time),
            reference.map((row) => row.time),
          );
        },
      ),
    );
  });

  it('merging per-shard first-N lists gives the first N overall', () => {
    fc.assert(
      fc.property(
        directionsArb.chain((directions) =>
          fc.tuple(fc.constant(directions), rowsArb(directions.length), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 20 })),
        ),
        ([directions, rows, shards, capacity]) => {
          const perShard = Array.from({ length: shards }, () => new SortedRows(directions, capacity));
          rows.forEach((row, i) => {
            const shard = perShard[i % shards];
            if (shard.accepts(row.keys, row.time)) shard.push(row);
          });
          const merged = mergeSorted(
            directions,
            perShard.map((shard) => shard.sorted()),
            capacity,
          );
          const single = new SortedRows(directions, capacity);
          for (const row of rows) single.push(row);
          assert.deepEqual(
            merged.map((row) => row.time),
            single.sorted().map((row) => row.time),
          );
        },
      ),
    );
  });

  it('nulls sort last in both directions, numbers before other values', () => {
    const rows: KeyedRow[] = [null, 'b', 10, 'a', 9, '10'].map((value, i) => ({ time: 100 - i, keys: [value], row: {} }));
    const order = (direction: 'asc' | 'desc') => {
      const sorted = new SortedRows([direction], Infinity);
      for (const row of rows) sorted.push(row);
      return sorted.sorted().map((row) => row.keys[0]);
    };
    assert.deepEqual(order('asc'), [9, 10, '10', 'a', 'b', null]);
    assert.deepEqual(order('desc'), ['b', 'a', 10, '10', 9, null]);
  });
});
