// Predicates that narrow a selection directly (CompiledExpr.select) keep exactly the rows that
// filterTrue(evaluate(...)) keeps, on random columns of every kind with nulls.

import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { Column, ColumnBatch } from '../../../storage/core/column';
import { parseQuery, planQuery } from '../../../query/stages';
import type { CompiledExpr } from '../../../query/exec/compiled';
import { filterTrue } from '../../../query/exec/vectors';

function predicateOf(where: string): CompiledExpr {
  const plan = planQuery(parseQuery(`from main | where ${where}`), { fromMicros: 0, toMicros: 1e18, nowMicros: 1e15 });
  const op = plan.shardOps[0];
  assert.equal(op.kind, 'filter');
  return (op as { predicate: CompiledExpr }).predicate;
}

type Cell = string | number | null;

function columnOf(kind: string, values: Cell[]): Column {
  if (kind === 'number') {
    return {
      kind: 'number',
      values: Float64Array.from(values, (v) => (typeof v === 'number' ? v : 0)),
      nulls: Uint8Array.from(values, (v) => (typeof v === 'number' ? 0 : 1)),
      allIntegers: true,
    };
  }
  if (kind === 'dict') {
    const dict = ['', ...[...new Set(values.filter((v) => v !== null).map(String))].sort()];
    return { kind: 'dict', dict, codes: new Uint8Array(values.map((v) => (v === null ? 0 : dict.indexOf(String(v))))) };
  }
  if (kind === 'time') return { kind: 'time', values: Float64Array.from(values, (v) => (typeof v === 'number' ? v : NaN)) };
  return { kind: 'mixed', values };
}

const cell: fc.Arbitrary<Cell> = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom('3', 'a', 'error', ' 2 ', ''),
  fc.constant(null),
);

const WHERES = [
  'x >= 2',
  'x < 0',
  'x = 3',
  'x != 3',
  'x <= -1',
  'x > 4',
  'x = "error"',
  'x != "a"',
  'x >= 1 and y = "error"',
  'y = "a" and x < 3 and x != -2',
];

describe('filter select fast paths', () => {
  it('select keeps the same rows as evaluate + filterTrue', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WHERES),
        fc.constantFrom('number', 'dict', 'time', 'mixed'),
        fc.constantFrom('number', 'dict', 'mixed'),
        fc.array(fc.tuple(cell, cell, fc.boolean()), { minLength: 1, maxLength: 80 }),
        (where, xKind, yKind, rows) => {
          const predicate = predicateOf(where);
          assert.ok(predicate.select !== undefined, where);
          const xs = rows.map(([x]) => (xKind === 'time' && typeof x !== 'number' ? null : x));
          const batch: ColumnBatch = {
            rowCount: rows.length,
            columns: new Map([
              ['x', columnOf(xKind, xs)],
              [
                'y',
                columnOf(
                  yKind,
                  rows.map(([, y]) => y),
                ),
              ],
            ]),
          };
          const selected = rows.flatMap(([, , on], row) => (on ? [row] : []));
          const expected = Uint32Array.from(selected);
          const kept = filterTrue(predicate.evaluate(batch, expected, selected.length), expected, selected.length);
          const sel = Uint32Array.from(selected);
          const n = predicate.select!(batch, sel, selected.length);
          assert.deepEqual([...sel.subarray(0, n)], [...expected.subarray(0, kept)], where);
        },
      ),
      { numRuns: 500 },
    );
  });
});
