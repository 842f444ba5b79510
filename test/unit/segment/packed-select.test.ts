// A number comparison run on a packed integer block's stored bytes (the scan's packed filter)
// must keep exactly the rows that comparing the decoded values keeps: every operator, nulls,
// constants between, below and above the block's values, NaN, and selections that skip rows.

import { strict as assert } from 'assert';
import fc from 'fast-check';
import { ColumnEncoding, decodeColumnBlock, encodeColumnBlock, readBlockHeader } from '../../../storage/segment/column-codec';
import { planeRange, selectPacked, type RangeOp } from '../../../storage/segment/packed-select';
import { nameBlock, setPayloadCacheBytes } from '../../../storage/segment/payload-cache';

const OPS: RangeOp[] = ['=', '!=', '<', '<=', '>', '>='];

// The oracle: the comparison on decoded values, as the executor's selectNumbers does it.
const COMPARE: Record<RangeOp, (value: number, constant: number) => boolean> = {
  '=': (value, constant) => value === constant,
  '!=': (value, constant) => value !== constant && !Number.isNaN(constant),
  '<': (value, constant) => value < constant,
  '<=': (value, constant) => value <= constant,
  '>': (value, constant) => value > constant,
  '>=': (value, constant) => value >= constant,
};

describe('packed integer blocks: comparisons on the stored bytes', () => {
  it('keeps exactly the rows whose decoded value compares true (property)', () => {
    let packedBlocks = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.oneof(fc.integer({ min: 200, max: 504 }), fc.constant(null)), { minLength: 1, maxLength: 400 }),
          fc.array(fc.integer({ min: -50, max: 200 }), { minLength: 1, maxLength: 400 }),
          fc.array(fc.oneof(fc.integer({ min: -(2 ** 40), max: 2 ** 45 }), fc.constant(null)), { minLength: 1, maxLength: 400 }),
          fc.array(fc.constant(7), { minLength: 1, maxLength: 50 }),
        ),
        fc.constantFrom(...OPS),
        fc.oneof(fc.integer({ min: -100, max: 600 }), fc.double({ noDefaultInfinity: false }), fc.constant(NaN), fc.constant(500.5)),
        // No skips (every row, the identity selection of a first filter) or some.
        fc.oneof(fc.constant([]), fc.array(fc.boolean(), { maxLength: 400 })),
        fc.nat(5),
        (values, op, constant, skips, offset) => {
          const block = encodeColumnBlock(values, 0, values.length, 1).data;
          if (readBlockHeader(block).encoding !== ColumnEncoding.NumberPacked) return;
          const whole = decodeColumnBlock(block);
          assert.equal(whole.kind, 'number');
          if (whole.kind !== 'number') return;
          packedBlocks++;
          // Batch rows start `offset` rows into the block; some rows are already deselected.
          const start = Math.min(offset, values.length - 1);
          const sel = new Uint32Array(values.length);
          let n = 0;
          for (let row = 0; row + start < values.length; row++) if (!skips[row]) sel[n++] = row;
          const expected = [...sel.subarray(0, n)].filter(
            (row) => whole.nulls?.[row + start] !== 1 && COMPARE[op](whole.values[row + start], constant),
          );
          const kept = selectPacked(block, op, constant, sel, n, start);
          assert.deepEqual([...sel.subarray(0, kept ?? -1)], expected, `${op} ${constant} over ${JSON.stringify(values.slice(0, 8))}`);
        },
      ),
      { numRuns: 2000 },
    );
    assert.ok(packedBlocks > 1000, `packed blocks: ${packedBlocks}`);
  });

  it('over a cached block, the per-value row lists keep the same rows as the loop (property)', () => {
    // Few-valued blocks (statuses) get row lists; the first filter of a batch (every row from
    // `offset` on, `n` of them) reads those lists when few rows pass.
    let listed = 0;
    try {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.array(fc.constantFrom(200, 200, 200, 200, 201, 304, 404, 500, 503), { minLength: 1, maxLength: 3000, size: 'max' }),
            fc.array(fc.constantFrom(1, 2, 3), { minLength: 1, maxLength: 200 }),
            fc.array(fc.integer({ min: 0, max: 70 }), { minLength: 100, maxLength: 3000, size: 'max' }),
            fc.array(fc.integer({ min: 100, max: 1000 }), { minLength: 1, maxLength: 3000, size: 'max' }),
          ),
          fc.constantFrom(...OPS),
          fc.oneof(fc.constantFrom(200, 304, 404, 500, 503, 2, 3, 69, 999), fc.integer({ min: -5, max: 1005 }), fc.constant(500.5)),
          fc.nat(40),
          fc.nat(40),
          (values, op, constant, skipStart, skipEnd) => {
            setPayloadCacheBytes(64 * 1024 * 1024);
            const block = encodeColumnBlock(values, 0, values.length, 1).data;
            if (readBlockHeader(block).encoding !== ColumnEncoding.NumberPacked) return;
            nameBlock(block, 'seg/0/status');
            const offset = Math.min(skipStart, values.length - 1);
            const n = Math.max(1, values.length - offset - skipEnd);
            const identity = (): Uint32Array => Uint32Array.from({ length: n }, (_, i) => i);
            const expected = identity();
            const expectedKept = selectPacked(Buffer.from(block), op, constant, expected, n, offset) as number;
            for (let pass = 0; pass < 3; pass++) {
              const sel = identity();
              const kept = selectPacked(block, op, constant, sel, n, offset);
              assert.deepEqual(
                [...sel.subarray(0, kept ?? -1)],
                [...expected.subarray(0, expectedKept)],
                `pass ${pass}: ${op} ${constant}`,
              );
            }
            if (expectedKept * 4 <= n && new Set(values).size <= 64) listed++;
          },
        ),
        { numRuns: 600 },
      );
    } finally {
      setPayloadCacheBytes(0);
    }
    assert.ok(listed > 100, `cases answered from row lists: ${listed}`);
  });

  it('turns each operator into one range of plane values', () => {
    // Values 200 + v, v in 0..255.
    assert.deepEqual(planeRange('>=', 200, 1, 500), { lo: 256, hi: 255, outside: false });
    assert.deepEqual(planeRange('>=', 200, 1, 300), { lo: 100, hi: 255, outside: false });
    assert.deepEqual(planeRange('>', 200, 1, 300), { lo: 101, hi: 255, outside: false });
    assert.deepEqual(planeRange('<', 200, 1, 300), { lo: 0, hi: 99, outside: false });
    assert.deepEqual(planeRange('<=', 200, 1, 300.5), { lo: 0, hi: 100, outside: false });
    assert.deepEqual(planeRange('=', 200, 1, 300), { lo: 100, hi: 100, outside: false });
    assert.deepEqual(planeRange('!=', 200, 1, 300.5), { lo: 1, hi: 0, outside: true });
  });

  it('answers null for a block of any other layout', () => {
    const block = encodeColumnBlock(['a', 'b', 'a'], 0, 3, 1).data;
    assert.equal(selectPacked(block, '=', 1, new Uint32Array([0, 1, 2]), 3, 0), null);
  });
});
