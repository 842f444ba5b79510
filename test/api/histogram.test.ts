/**
 * GET /histogram against the real server: counts per interval checked against the test's own
 * events, the interval for the range, q as an expression, as stages and as a whole pipeline, and
 * the refusals.
 */
import { strict as assert } from 'assert';
import { assertError, dispose } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';

const BASE_S = 1_700_000_000 - (1_700_000_000 % 3600); // an hour boundary
const EVENTS = Array.from({ length: 300 }, (_, i) => ({
  event: `request ${i} ${i % 7 === 0 ? 'timeout' : 'ok'}`,
  time: BASE_S + ((i * 37) % 3600), // spread over the hour
  index: i % 2 === 0 ? 'web' : 'db',
  fields: { status: i % 5 === 0 ? 503 : 200 },
}));

/** The expected counts per minute of the events `keep` keeps, from the test's own data. */
function perMinute(keep: (event: (typeof EVENTS)[number]) => boolean): number[] {
  const counts = new Array<number>(60).fill(0);
  for (const event of EVENTS) if (keep(event)) counts[Math.floor((event.time - BASE_S) / 60)]! += 1;
  return counts;
}

describe('api: histogram', function () {
  this.timeout(60_000);
  let server: TestServer;
  const from = new Date(BASE_S * 1000).toISOString();
  const to = new Date((BASE_S + 3600) * 1000).toISOString();

  before(async () => {
    server = await TestServer.start({ set: { retention: '3650d' } });
    const ingested = await postJson(`${server.api}/ingest`, EVENTS);
    assert.deepEqual(ingested.body, { data: { accepted: EVENTS.length, failed: 0 } });
  });

  after(async () => {
    await dispose(server);
  });

  const histogram = (params: Record<string, string>) => request(`${server.api}/histogram?${new URLSearchParams(params)}`);

  it('counts every event per minute over an hour, the buckets summing to total', async () => {
    const answer = await histogram({ from, to });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.interval, '1m');
    assert.equal(answer.body.data.buckets.length, 60);
    assert.equal(answer.body.data.buckets[0].time, from);
    assert.deepEqual(
      answer.body.data.buckets.map((bucket: { count: number }) => bucket.count),
      perMinute(() => true),
    );
    assert.equal(answer.body.data.total, EVENTS.length);
    assert.equal(typeof answer.body.meta.took_ms, 'number');
  });

  it('filters with q as an expression, as stages and as a whole pipeline', async () => {
    const failing = perMinute((event) => event.fields.status === 503);
    const timeouts = perMinute((event) => event.event.includes('timeout'));
    const webFailing = perMinute((event) => event.index === 'web' && event.fields.status === 503);
    const cases: [string, number[]][] = [
      ['status >= 500', failing],
      ['search timeout', timeouts],
      ['where status = 503', failing],
      ['from web | where status >= 500', webFailing],
    ];
    for (const [q, expected] of cases) {
      const answer = await histogram({ from, to, q });
      assert.equal(answer.status, 200, `${q}: ${answer.text}`);
      assert.deepEqual(
        answer.body.data.buckets.map((bucket: { count: number }) => bucket.count),
        expected,
        q,
      );
      assert.equal(
        answer.body.data.total,
        expected.reduce((a, b) => a + b, 0),
        q,
      );
    }
  });

  it('picks the interval from the range and the bucket target', async () => {
    const wide = await histogram({ from, to, buckets: '6' });
    assert.equal(wide.status, 200, wide.text);
    assert.equal(wide.body.data.interval, '15m');
    assert.deepEqual(
      wide.body.data.buckets.map((bucket: { count: number }) => bucket.count),
      [0, 1, 2, 3].map((quarter) =>
        perMinute(() => true)
          .slice(quarter * 15, quarter * 15 + 15)
          .reduce((a, b) => a + b, 0),
      ),
    );
    const day = await histogram({ from, to: new Date((BASE_S + 86_400) * 1000).toISOString() });
    assert.equal(day.body.data.interval, '15m');
    assert.equal(day.body.data.buckets.length, 96);
    assert.equal(day.body.data.total, EVENTS.length);
  });

  it('refuses a missing from, a bad bucket count, a q that does not parse or that counts otherwise', async () => {
    assertError(await histogram({ to }), 400, 'VALIDATION_ERROR', 'no from');
    assertError(await histogram({ from, to, buckets: '0' }), 400, 'VALIDATION_ERROR', 'buckets 0');
    assertError(await histogram({ from: to, to: from }), 400, 'VALIDATION_ERROR', 'from after to');
    const bad = await histogram({ from, to, q: 'status >= ' });
    assertError(bad, 400, 'INVALID_QUERY', 'a q that does not parse');
    assert.equal(bad.body.error.column, 10, 'the position is in q as sent: its last character');
    const counting = await histogram({ from, to, q: 'stats count() by host' });
    assertError(counting, 400, 'VALIDATION_ERROR', 'stats');
    assert.match(counting.body.error.message, /stats is not accepted/);
  });

  it('refuses a range of more buckets than it lists and a bound past what a date holds, and stays up', async () => {
    // 100,000,000 days: a hundred million buckets of 1d, which the node built until it ran out of memory.
    const centuries = await histogram({ from: '-99999999d' });
    assertError(centuries, 400, 'VALIDATION_ERROR', 'from -99999999d');
    assert.match(centuries.body.error.message, /^from and to span \d+ buckets of 1d; a histogram lists at most 100000: narrow the range$/);
    assertError(await histogram({ from: '-1000y' }), 400, 'VALIDATION_ERROR', 'from -1000y');
    assert.equal((await histogram({ from: '-100y', q: 'from web' })).status, 200, 'a century');
    // Past what a date holds: a 500 when the buckets or the meta showed the bound as a date.
    assertError(await histogram({ from: '-99999999y' }), 400, 'VALIDATION_ERROR', 'from -99999999y');
    assertError(await histogram({ from: '-1h', to: '+99999999y' }), 400, 'VALIDATION_ERROR', 'to +99999999y');
    assertError(await request(`${server.api}/fields/status/values?from=-99999999y`), 400, 'VALIDATION_ERROR', 'field values');
    assert.equal((await request(`${server.url}/health`)).status, 200);
  });
});
