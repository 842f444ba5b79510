/** The N-th newest of a selection's times: read off the end of a block in time order, sorted otherwise; ties count once each. */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { nthNewestSelected } from '../../../query/exec/nth-newest';

/** The definition: the selected times sorted newest first, the count-th of them. */
function byDefinition(times: readonly number[], sel: readonly number[], count: number): number {
  return sel.map((row) => times[row]!).sort((a, b) => b - a)[count - 1]!;
}

describe('the N-th newest time of a selection', () => {
  const case_ = (sorted: boolean) =>
    fc
      .array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 200 })
      .map((times) => (sorted ? [...times].sort((a, b) => a - b) : times))
      .chain((times) =>
        fc.tuple(
          fc.constant(times),
          // A selection is ascending row numbers, as the filters leave it.
          fc.subarray(
            times.map((_, row) => row),
            { minLength: 1 },
          ),
        ),
      )
      .chain(([times, sel]) => fc.tuple(fc.constant(times), fc.constant(sel), fc.integer({ min: 1, max: sel.length })));

  for (const sorted of [true, false]) {
    it(`matches sorting the selected times, rows ${sorted ? 'in time order (a segment block)' : 'in any order (a buffered chunk)'}`, () => {
      fc.assert(
        fc.property(case_(sorted), ([times, sel, count]) => {
          const got = nthNewestSelected(Float64Array.from(times), Uint32Array.from(sel), sel.length, count);
          assert.equal(got, byDefinition(times, sel, count));
        }),
      );
    });
  }

  it('reads only the first n entries of the selection', () => {
    const times = Float64Array.from([1, 2, 3, 9, 5]);
    assert.equal(nthNewestSelected(times, Uint32Array.from([0, 1, 2, 3, 4]), 3, 1), 3);
    assert.equal(nthNewestSelected(times, Uint32Array.from([4, 3, 0]), 3, 2), 5);
  });

  it('refuses a count the selection cannot give', () => {
    assert.throws(() => nthNewestSelected(new Float64Array(2), new Uint32Array(2), 2, 3), RangeError);
    assert.throws(() => nthNewestSelected(new Float64Array(2), new Uint32Array(2), 2, 0), RangeError);
  });
});
