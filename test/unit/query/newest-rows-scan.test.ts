/**
 * A `head N` and an events page keep the newest rows of a scan. A block can hold far more
 * matches than the page: only the newest N that can still enter are decoded further, yet the
 * answer and the match count must be those of every match. Blocks here hold hundreds of matches
 * each, some at equal times, flushed and buffered; the answers come from the test's own events.
 */
import { strict as assert } from 'assert';
import { QueryWorkerPool } from '../../../query/exec/session-pool';
import type { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { openTestEngine } from '../../helpers/engine';
import { answerOf } from '../../helpers/query-run';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;
const RANGE = { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR };

/** 5,000 events over two hours; every third shares its time with the one before (ties). */
const EVENTS: LogEvent[] = Array.from({ length: 5000 }, (_, i) => ({
  time: BASE + (i - (i % 3 === 2 ? 1 : 0)) * 1_400_000,
  raw: `event ${i}`,
  index: 'main',
  fields: { n: i, host: `h${i % 4}` },
}));

describe('the newest rows of a scan whose blocks hold many matches', function () {
  this.timeout(60_000);
  let engine: StorageEngine;
  let pool: QueryWorkerPool;

  before(async () => {
    engine = await openTestEngine({ segmentMaxEvents: 2000 });
    await engine.appendEvents(EVENTS.slice(0, 4200));
    await engine.flush();
    // The newest events stay buffered: a scan reads both kinds of unit.
    await engine.appendEvents(EVENTS.slice(4200));
    pool = new QueryWorkerPool(2);
  });

  after(async () => {
    await pool.close();
    await engine.close();
  });

  async function run(text: string, page: { limit: number; offset: number }) {
    const data = await answerOf(engine, pool, text, RANGE, page);
    assert.equal(data.type, 'events');
    return data.type === 'events' ? data : null!;
  }

  /** The events matching `keep`, newest first, ties by nothing in particular: their times. */
  const newestTimes = (keep: (event: LogEvent) => boolean): number[] =>
    EVENTS.filter(keep)
      .map((event) => event.time)
      .sort((a, b) => b - a);

  const timesOf = (events: Record<string, unknown>[]): number[] => events.map((event) => Date.parse(event._time as string) * 1000);

  it('a head keeps the newest N matches, whichever block they are in', async () => {
    const even = (event: LogEvent): boolean => (event.fields.n as number) % 2 === 0;
    for (const count of [1, 10, 250]) {
      const data = await run(`from main | where n % 2 = 0 | head ${count}`, { limit: 1000, offset: 0 });
      assert.deepEqual(timesOf(data.events), newestTimes(even).slice(0, count), `head ${count}`);
    }
  });

  it('an events page counts every match and shows the newest page of them', async () => {
    const low = (event: LogEvent): boolean => (event.fields.n as number) % 5 !== 0;
    const data = await run('from main | where n % 5 != 0', { limit: 30, offset: 20 });
    assert.equal(data.total, EVENTS.filter(low).length);
    assert.deepEqual(timesOf(data.events), newestTimes(low).slice(20, 50));
  });
});
