// decodeColumnBlockRows (a late column where a filter kept few rows) must read, at the listed
// rows, exactly what a whole decode reads, for every layout: dictionaries decode only the entries
// those rows use, templates, hex ids and packed integers only those rows.

import { strict as assert } from 'assert';
import fc from 'fast-check';
import { valueAt } from '../../../storage/core/column';
import {
  ColumnEncoding,
  decodeColumnBlock,
  decodeColumnBlockRows,
  encodeColumnBlock,
  readBlockHeader,
} from '../../../storage/segment/column-codec';

describe('column blocks: decoding listed rows only', () => {
  it('reads the listed rows as a whole decode does (property)', () => {
    const seen = new Set<ColumnEncoding>();
    fc.assert(
      fc.property(
        fc.oneof(
          // Few distinct texts: a dictionary.
          fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constant(null)), { minLength: 1, maxLength: 40 }),
          // One digit skeleton (u123, 10.0.2.46): a template; fixed-length hex: hex bytes.
          fc.array(
            fc.oneof(
              fc.nat().map((v) => `u${v}`),
              fc.constant(null),
            ),
            { minLength: 300, maxLength: 600 },
          ),
          fc.array(
            fc.oneof(
              fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `10.0.${a}.${b}`),
              fc.constant(null),
            ),
            { minLength: 300, maxLength: 600 },
          ),
          fc.array(fc.oneof(fc.stringMatching(/^[0-9a-f]{12}$/), fc.constant(null)), { minLength: 300, maxLength: 600 }),
          fc.array(fc.oneof(fc.stringMatching(/^[0-9A-F]{10}$/), fc.constant(null)), { minLength: 300, maxLength: 600 }),
          // Distinct free text: a plain string list.
          fc.array(fc.oneof(fc.string({ unit: 'grapheme', minLength: 8, maxLength: 30 }), fc.constant(null)), {
            minLength: 300,
            maxLength: 600,
          }),
          // Integers: byte planes.
          fc.array(fc.oneof(fc.integer({ min: -1_000_000, max: 2 ** 40 }), fc.constant(null)), { minLength: 300, maxLength: 600 }),
        ),
        fc.array(fc.nat(), { minLength: 1, maxLength: 3000 }),
        fc.array(fc.nat(), { maxLength: 200 }),
        (pool, picks, wanted) => {
          // Templates and hex ids keep their (mostly distinct) pool; dictionaries repeat theirs.
          const values = pool.length >= 300 ? pool : picks.map((p) => pool[p % pool.length]);
          const block = encodeColumnBlock(values, 0, values.length, 1).data;
          seen.add(readBlockHeader(block).encoding);
          const rows = [...new Set(wanted.map((w) => w % values.length))].sort((a, b) => a - b);
          const whole = decodeColumnBlock(block);
          const some = decodeColumnBlockRows(block, rows);
          for (const row of rows) assert.deepEqual(valueAt(some, row), valueAt(whole, row), `row ${row}`);
        },
      ),
      { numRuns: 400 },
    );
    for (const encoding of [
      ColumnEncoding.Dict,
      ColumnEncoding.StringTemplate,
      ColumnEncoding.HexString,
      ColumnEncoding.String,
      ColumnEncoding.NumberPacked,
    ]) {
      assert.ok(seen.has(encoding), `encodings seen: ${[...seen].join(', ')}`);
    }
  });

  it('a dictionary block makes strings only for the entries the rows use', () => {
    const values = Array.from({ length: 5000 }, (_, i) => `/api/v1/orders/${i % 2500}`);
    const block = encodeColumnBlock(values, 0, values.length, 1).data;
    assert.equal(readBlockHeader(block).encoding, ColumnEncoding.Dict);
    const column = decodeColumnBlockRows(block, [3, 2503, 4999]);
    assert.equal(column.kind, 'dict');
    if (column.kind !== 'dict') return;
    assert.deepEqual(
      [3, 2503, 4999].map((row) => valueAt(column, row)),
      ['/api/v1/orders/3', '/api/v1/orders/3', '/api/v1/orders/2499'],
    );
    assert.equal(column.dict.filter((entry) => entry !== '').length, 2);
  });
});
