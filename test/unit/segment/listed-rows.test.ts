import { strict as assert } from 'assert';
import fc from 'fast-check';
import { valueAt } from '../../../storage/core/column';
import { ListedRows } from '../../../storage/segment/listed-rows';
import { denseIndexes, nonNullCountOfBits } from '../../../storage/segment/null-bits';
import { packBits } from '../../../storage/segment/bytes';

describe('listed rows', () => {
  it('reads each listed row as added, every other row as null (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70_000 }),
        fc.array(fc.tuple(fc.nat(), fc.oneof(fc.string(), fc.constant(null))), { maxLength: 60 }),
        (length, picks) => {
          const byRow = new Map(picks.map(([at, value]) => [at % length, value]));
          const rows = [...byRow.keys()].sort((a, b) => a - b);
          const listed = new ListedRows(length);
          for (const row of rows) listed.add(row, byRow.get(row)!);
          const column = listed.column();
          assert.equal(column.kind, 'dict');
          for (const row of rows) assert.equal(valueAt(column, row), byRow.get(row));
          for (let probe = 0; probe < 50; probe++) {
            const row = (probe * 7919) % length;
            if (!byRow.has(row)) assert.equal(valueAt(column, row), null);
          }
          assert.deepEqual([...listed.listed()], rows);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('replaces values, forgets a tail, and gives mixed values when not all are strings', () => {
    const listed = new ListedRows(16_384, 16_384);
    listed.add(3, 'a');
    listed.add(900, null);
    listed.add(16_000, 'c');
    listed.setValue(2, 'C');
    assert.throws(() => listed.setValue(1, 'x'), /null row/);
    assert.deepEqual(
      [0, 1, 2].map((k) => listed.valueOf(k)),
      ['a', null, 'C'],
    );
    listed.truncate(1);
    listed.add(5, 'e');
    const column = listed.column();
    assert.deepEqual(
      [3, 5, 900, 16_000].map((row) => valueAt(column, row)),
      ['a', 'e', null, null],
    );
    const mixed = new ListedRows(10, 3);
    mixed.add(1, 'x');
    mixed.add(4, 42);
    const values = mixed.column();
    assert.equal(values.kind, 'mixed');
    assert.deepEqual(
      [0, 1, 4].map((row) => valueAt(values, row)),
      [null, 'x', 42],
    );
  });
});

describe('null bits', () => {
  it('place listed rows among the non-null rows as an unpacked bitmap does (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 300 }), fc.array(fc.nat(), { maxLength: 40 }), (nulls, picks) => {
        const n = nulls.length;
        const bits = packBits(
          Uint8Array.from(nulls, (isNull) => (isNull ? 1 : 0)),
          0,
          n,
        );
        const rows = [...new Set(picks.map((p) => p % n))].sort((a, b) => a - b);
        const expected = rows.map((row) => (nulls[row] ? -1 : nulls.slice(0, row).filter((isNull) => !isNull).length));
        assert.deepEqual([...denseIndexes(bits, rows)], expected);
        assert.deepEqual([...denseIndexes(null, rows)], rows);
        assert.equal(nonNullCountOfBits(bits, n), nulls.filter((isNull) => !isNull).length);
      }),
      { numRuns: 300 },
    );
  });
});
