import { strict as assert } from 'assert';
import { evaluateResult } from '../../../node/alerts/condition';

describe('alerts: condition', () => {
  const aggregate = (columns: string[], rows: unknown[][]) =>
    ({ type: 'aggregate', columns, rows, total_rows: rows.length, has_more: false }) as Parameters<typeof evaluateResult>[0];

  it('is met by a row whose first numeric column is non-zero, and shows that row', () => {
    const data = aggregate(
      ['host', 'n', 'avg'],
      [
        ['a', 0, 3],
        ['b', 2, 0],
        ['c', 5, 1],
      ],
    );
    assert.deepEqual(evaluateResult(data), { met: true, result: { host: 'b', n: 2, avg: 0 } });
  });

  it('is not met by no rows, zero counts or rows without a number', () => {
    assert.deepEqual(evaluateResult(aggregate(['n'], [])), { met: false, result: {} });
    assert.deepEqual(evaluateResult(aggregate(['n'], [[0]])), { met: false, result: { n: 0 } });
    assert.equal(evaluateResult(aggregate(['host'], [['a'], [null]])).met, false);
  });

  it('is met by an events result that holds an event', () => {
    const events = { type: 'events', events: [{ _raw: 'boom', host: 'a' }], total: 3, has_more: true } as Parameters<
      typeof evaluateResult
    >[0];
    assert.deepEqual(evaluateResult(events), { met: true, result: { count: 3, _raw: 'boom', host: 'a' } });
    const none = { type: 'events', events: [], total: 0, has_more: false } as Parameters<typeof evaluateResult>[0];
    assert.deepEqual(evaluateResult(none), { met: false, result: { count: 0 } });
  });
});
