/**
 * A scan left with nothing to read (every segment pruned by its blooms, no buffered rows) answers
 * without a worker session, and its answer is the one the sessions give when they read blocks
 * and find no match: the empty events page, and the aggregates of no rows.
 */
import { strict as assert } from 'assert';
import { QueryWorkerPool, type SessionHandle } from '../../../query/exec/session-pool';
import type { SessionSpec } from '../../../query/exec/worker-protocol';
import type { QueryPlan } from '../../../query/plan/plan';
import type { StorageEngine } from '../../../storage/engine';
import { openTestEngine } from '../../helpers/engine';
import { answerOf } from '../../helpers/query-run';

const BASE = Date.UTC(2026, 0, 5) * 1000;
const RANGE = { fromMicros: 0, toMicros: BASE + 86_400e6, nowMicros: BASE + 86_400e6 };

/** The real pool, counting the sessions it opens. */
class CountingPool extends QueryWorkerPool {
  opened = 0;

  override open(plan: QueryPlan, spec: SessionSpec, limit = Infinity): SessionHandle[] {
    const handles = super.open(plan, spec, limit);
    this.opened += handles.length;
    return handles;
  }
}

describe('a scan with nothing left to read', function () {
  this.timeout(30_000);
  let engine: StorageEngine;
  let pool: CountingPool;

  before(async () => {
    engine = await openTestEngine({ segmentMaxEvents: 1000 });
    await engine.appendEvents(
      Array.from({ length: 3000 }, (_, i) => ({ time: BASE + i * 1e6, raw: `GET /item/${i} ok`, index: 'main', fields: { n: i } })),
    );
    await engine.flush();
    pool = new CountingPool(1);
  });

  after(async () => {
    await pool.close();
    await engine.close();
  });

  async function answer(text: string) {
    const before = pool.opened;
    const data = await answerOf(engine, pool, text, RANGE);
    return { data, sessions: pool.opened - before };
  }

  it('answers a term no bloom filter lets through without a session, as the sessions answer no match', async () => {
    const pruned = await answer('from main | search zq7absentxv');
    assert.equal(pruned.sessions, 0);
    assert.deepEqual(pruned.data, { type: 'events', events: [], total: 0, has_more: false });

    // The same shapes from sessions that read every block (an expression no statistic prunes).
    const read = await answer('from main | where n * 2 = -1');
    assert.ok(read.sessions > 0);
    assert.deepEqual(pruned.data, read.data);

    for (const tail of ['stats count()', 'stats count(), sum(n) by host', 'top 5 host', 'head 3']) {
      const prunedAggregate = await answer(`from main | search zq7absentxv | ${tail}`);
      const readAggregate = await answer(`from main | where n * 2 = -1 | ${tail}`);
      assert.equal(prunedAggregate.sessions, 0, tail);
      assert.deepEqual(prunedAggregate.data, readAggregate.data, tail);
    }
  });
});
