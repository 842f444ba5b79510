/**
 * `stats count() by bin(_time, step)` with no filter is counted from segment headers (minute
 * counts) and `_time`, not by query worker sessions. Its answer must be the count of the test's
 * own events per interval, whatever the step (finer than a minute, whole minutes, hours), whether
 * the range cuts minutes and segments, for flushed, compacted-alike and buffered rows, and for
 * segments whose headers lack minute counts.
 */
import { strict as assert } from 'assert';
import { QueryWorkerPool } from '../../../query/exec/session-pool';
import type { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { openTestEngine } from '../../helpers/engine';
import { parseQuery, planQuery } from '../../../query/stages';
import { answerOf } from '../../helpers/query-run';
import { prng } from '../../../scripts/bench/generate';

const SECOND = 1_000_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const BASE = Date.UTC(2026, 0, 5) * 1000;

const random = prng(11);
/** 6,000 events over three hours, unevenly (bursts and gaps), with fractional-second times. */
const EVENTS: LogEvent[] = Array.from({ length: 6000 }, (_, i) => ({
  time: BASE + Math.floor(Math.pow(random(), 1.5) * 3 * HOUR),
  raw: `event ${i}`,
  index: i % 3 === 0 ? 'db' : 'web',
  fields: { n: i },
}));

describe('counts per interval from segment headers', function () {
  this.timeout(60_000);
  let engine: StorageEngine;
  let pool: QueryWorkerPool;

  before(async () => {
    engine = await openTestEngine({ segmentMaxEvents: 1500 });
    await engine.appendEvents(EVENTS.slice(0, 5000));
    await engine.flush();
    await engine.appendEvents(EVENTS.slice(5000));
    pool = new QueryWorkerPool(2);
  });

  after(async () => {
    await pool.close();
    await engine.close();
  });

  async function counts(text: string, fromMicros: number, toMicros: number): Promise<Map<number, number>> {
    const range = { fromMicros, toMicros, nowMicros: BASE + 4 * HOUR };
    const data = await answerOf(engine, pool, text, range, { limit: 100_000, offset: 0 });
    assert.equal(data.type, 'aggregate');
    const out = new Map<number, number>();
    if (data.type === 'aggregate') for (const [start, count] of data.rows) out.set(Date.parse(String(start)) * 1000, Number(count));
    return out;
  }

  function expected(step: number, fromMicros: number, toMicros: number, index?: string): Map<number, number> {
    const out = new Map<number, number>();
    for (const event of EVENTS) {
      if (event.time < fromMicros || event.time >= toMicros || (index !== undefined && event.index !== index)) continue;
      const start = Math.floor(event.time / step) * step;
      out.set(start, (out.get(start) ?? 0) + 1);
    }
    return new Map([...out].sort((a, b) => a[0] - b[0]));
  }

  const sorted = (map: Map<number, number>) => new Map([...map].sort((a, b) => a[0] - b[0]));

  it('plans the shortcut only for count() by bin(_time, step) with nothing before it', () => {
    const range = { fromMicros: BASE, toMicros: BASE + HOUR, nowMicros: BASE + HOUR };
    const step = (text: string) => {
      const boundary = planQuery(parseQuery(text, {}), range).boundary;
      return boundary.kind === 'stats' ? (boundary.countsPerInterval ?? null) : null;
    };
    assert.equal(step('from * | stats count() by bin(_time, 5m)'), 5 * MINUTE);
    assert.equal(step('from * | stats count() as n, count() by bin(_time, 1h)'), HOUR);
    assert.equal(step('from * | stats count(n) by bin(_time, 5m)'), null);
    assert.equal(step('from * | stats count() by bin(_time, 5m), index'), null);
    assert.equal(step('from * | stats count() by bin(n, 5)'), null);
  });

  it('counts every step over the whole range, ranges cutting minutes and segments, and one index', async () => {
    const cases: [string, number, number, number, string?][] = [
      ['from * | stats count() by bin(_time, 1m)', MINUTE, BASE, BASE + 3 * HOUR],
      ['from * | stats count() by bin(_time, 5m)', 5 * MINUTE, BASE - HOUR, BASE + 5 * HOUR],
      ['from * | stats count() by bin(_time, 1h)', HOUR, BASE, BASE + 3 * HOUR],
      ['from * | stats count() by bin(_time, 5s)', 5 * SECOND, BASE + 7 * MINUTE + 13 * SECOND, BASE + 11 * MINUTE + 2 * SECOND],
      ['from * | stats count() by bin(_time, 1m)', MINUTE, BASE + 17 * MINUTE + 29 * SECOND + 123, BASE + 2 * HOUR + 41 * SECOND],
      ['from * | stats count() by bin(_time, 15m)', 15 * MINUTE, BASE + 59 * MINUTE + 59 * SECOND, BASE + 2 * HOUR + 59 * MINUTE + 1],
      ['from db | stats count() by bin(_time, 5m)', 5 * MINUTE, BASE + 3 * MINUTE + 500_000, BASE + 3 * HOUR, 'db'],
    ];
    for (const [text, step, from, to, index] of cases) {
      const want = expected(step, from, to, index);
      assert.ok(want.size > 0, text);
      assert.deepEqual(sorted(await counts(text, from, to)), want, `${text} over [${from - BASE}, ${to - BASE})`);
    }
  });

  it('agrees with the sessions that read _time (count(_time) takes no shortcut)', async () => {
    const from = BASE + 10 * MINUTE + 1;
    const to = BASE + 2 * HOUR + 30 * MINUTE - 1;
    const viaHeaders = await counts('from * | stats count() by bin(_time, 5m)', from, to);
    const viaSessions = await counts('from * | stats count(_time) by bin(_time, 5m)', from, to);
    assert.deepEqual(sorted(viaHeaders), sorted(viaSessions));
  });

  it('counts segments whose headers hold no minute counts from _time', async () => {
    const headers = [...engine.store.all()];
    assert.ok(headers.some((header) => header.minuteCounts !== undefined));
    const kept = headers.map((header) => header.minuteCounts);
    try {
      for (const header of headers) delete header.minuteCounts;
      const from = BASE + 3 * MINUTE + 7;
      const to = BASE + 3 * HOUR;
      assert.deepEqual(sorted(await counts('from * | stats count() by bin(_time, 1m)', from, to)), expected(MINUTE, from, to));
    } finally {
      headers.forEach((header, i) => (header.minuteCounts = kept[i]));
    }
  });
});
