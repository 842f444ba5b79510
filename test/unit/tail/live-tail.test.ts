/**
 * The pure parts of live tail: which stages a tail runs, the live pipeline over ingested chunks
 * (filters, reshaping, `head` counted over the session, formatting as a query answers), the
 * catchup overlap, and the ingest bus.
 */
import { strict as assert } from 'assert';
import { liveTailPlan, tailQueryText, unsupportedTailStage } from '../../../coordinator/tail';
import { LiveFinish, matchChunks } from '../../../query/exec/live-pipeline';
import { parseQuery } from '../../../query/stages';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { LogEvent } from '../../../storage/core/event';
import { CatchupOverlap } from '../../../node/tail/catchup-overlap';
import { IngestBus } from '../../../node/tail/ingest-bus';

const HOUR = 3_600_000_000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 1 };
const BASE = 1_700_000_000_000_000;

const EVENTS: LogEvent[] = Array.from({ length: 12 }, (_, i) => ({
  time: BASE + i * 1_000_000,
  raw: `request ${i}`,
  index: i % 3 === 0 ? 'db' : 'web',
  fields: { status: i % 4 === 0 ? 500 : 200, host: `h${i % 2}` },
}));

function planOf(text: string) {
  return liveTailPlan(parseQuery(text), BASE);
}

describe('live tail: pure parts', () => {
  it('runs streaming stages only', () => {
    assert.equal(unsupportedTailStage(parseQuery('from web | where status = 500 | extend x = 1 | keep x | head 3')), null);
    assert.equal(unsupportedTailStage(parseQuery('from web | where status = 500 | stats count()')), 'stats');
    assert.equal(unsupportedTailStage(parseQuery('from web | sort _time')), 'sort');
    assert.deepEqual(tailQueryText('status = 500'), { text: 'from * | where status = 500', prefixLength: 'from * | where '.length });
  });

  it('matches the chunks of the query indexes through its stages, as a query formats them', () => {
    const plan = planOf('from web | where status = 500 | extend twice = status * 2');
    const rows = new LiveFinish(plan).finish(matchChunks(plan, chunkEvents(EVENTS, PLACEMENT)));
    const expected = EVENTS.filter((event) => event.index === 'web' && event.fields.status === 500);
    assert.ok(expected.length > 0);
    assert.deepEqual(
      rows.map((row) => [row._raw, row.twice, row._time]),
      expected.map((event) => [event.raw, 1000, new Date(event.time / 1000).toISOString()]),
    );
    assert.deepEqual(Object.keys(rows[0]!).slice(0, 3), ['_time', '_raw', 'index'], 'the well-known fields first');
  });

  it('counts each head over the whole session, and runs the stages after it', () => {
    const plan = planOf('from * | head 5 | keep _raw');
    const finish = new LiveFinish(plan);
    const first = finish.finish(matchChunks(plan, chunkEvents(EVENTS.slice(0, 3), PLACEMENT)));
    assert.deepEqual(
      first,
      EVENTS.slice(0, 3).map((event) => ({ _raw: event.raw })),
    );
    assert.equal(finish.exhausted, false);
    const second = finish.finish(matchChunks(plan, chunkEvents(EVENTS.slice(3, 9), PLACEMENT)));
    assert.deepEqual(second.length, 2);
    assert.equal(finish.exhausted, true);
    assert.deepEqual(finish.finish(matchChunks(plan, chunkEvents(EVENTS.slice(9), PLACEMENT))), []);
  });

  it('takes out of the live events those the catchup sent, once per copy, whatever the field order', () => {
    const overlap = new CatchupOverlap([
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
    ]);
    const live = [
      { b: 'x', a: 1 },
      { a: 1, b: 'x' },
      { a: 3, b: 'z' },
      { a: 2, b: 'y' },
    ];
    assert.deepEqual(overlap.withoutSent(live), [
      { a: 1, b: 'x' },
      { a: 3, b: 'z' },
    ]);
  });

  it('the bus hands each publication, after the publishing turn, to the listeners of the time; a failing listener does not stop the others', async () => {
    const failures: Error[] = [];
    const bus = new IngestBus((error) => failures.push(error));
    const heard: number[] = [];
    const chunks = chunkEvents(EVENTS, PLACEMENT);
    const stopFailing = bus.subscribe(() => {
      throw new Error('listener broke');
    });
    const stop = bus.subscribe((published) => heard.push(published.length));
    assert.equal(bus.subscriberCount, 2);
    bus.publish(chunks);
    assert.deepEqual(heard, [], 'not during the publishing turn');
    // Subscribed after the publication: not for it.
    const late: number[] = [];
    const stopLate = bus.subscribe((published) => late.push(published.length));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(heard, [chunks.length]);
    assert.deepEqual(late, []);
    assert.equal(failures.length, 1);
    // Unsubscribed before the delivery: not either.
    bus.publish(chunks);
    stopFailing();
    stop();
    stopLate();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(heard, [chunks.length]);
    assert.equal(failures.length, 1);
    assert.equal(bus.subscriberCount, 0);
  });
});
