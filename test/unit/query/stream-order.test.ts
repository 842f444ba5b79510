import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { TimedRow } from '../../../query/exec/rows';
import { StreamOrder } from '../../../query/exec/stream-order';

/** Units in dispatch order (newest time first), each with rows no newer than its newest time. */
const unitsArb = fc
  .array(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 20 }), { minLength: 1, maxLength: 12 })
  .map((unitTimes) =>
    unitTimes.map((times, u) => ({ u, maxTime: Math.max(-1, ...times), rows: times.map((time): TimedRow => ({ time, row: { u } })) })),
  )
  .map((units) => [...units].sort((a, b) => b.maxTime - a.maxTime).map((unit, u) => ({ ...unit, u })));

describe('stream order (newest first across units answered out of order)', () => {
  it('releases every row exactly once, newest first, whatever order the units answer in', () => {
    fc.assert(
      fc.property(
        unitsArb.chain((units) =>
          fc.tuple(
            fc.constant(units),
            fc.shuffledSubarray(
              units.map((unit) => unit.u),
              { minLength: units.length },
            ),
          ),
        ),
        ([units, answerOrder]) => {
          const order = new StreamOrder(units.map((unit) => unit.maxTime));
          const released: number[] = [];
          for (const u of answerOrder) released.push(...order.answer(u, units[u].rows).map((row) => row.time));
          assert.equal(order.waiting, 0);
          const all = units.flatMap((unit) => unit.rows.map((row) => row.time)).sort((a, b) => b - a);
          assert.deepEqual(released, all);
        },
      ),
    );
  });

  it('holds a row back while an earlier unit that may hold newer rows has not answered', () => {
    const order = new StreamOrder([50, 40]);
    assert.deepEqual(order.answer(1, [{ time: 40, row: {} }]), []);
    assert.deepEqual(
      order.answer(0, [{ time: 10, row: {} }]).map((row) => row.time),
      [40, 10],
    );
  });
});
