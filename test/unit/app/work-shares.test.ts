/**
 * The rule by which ingest and background work yield to running queries: bounds that hold only
 * while a query runs, at least one ingest request at a time, and a background wait that ends when
 * the queries do or at `server.background_pause`.
 */
import { strict as assert } from 'assert';
import { WorkShares, type ShareSettings } from '../../../node/app/work-shares';
import { coerceValue } from '../../../node/config/validate';

describe('work shares', () => {
  let running = 0;
  let settings: ShareSettings;
  const shares = new WorkShares(
    () => running,
    () => settings,
  );

  beforeEach(() => {
    running = 0;
    settings = { ingestShare: 0.5, backgroundPauseMs: 10_000, ingestWorkers: 4, maxBufferedEvents: 1000 };
  });

  it('no query running: no bound on ingest requests, the whole write buffer', async () => {
    assert.equal(shares.ingestLimit(), null);
    assert.equal(shares.bufferedEventsLimit(), 1000);
    const releases = await Promise.all(Array.from({ length: 10 }, () => shares.admitIngest()));
    assert.ok(releases.every((release) => release !== null));
    for (const release of releases) release!();
    assert.equal(shares.status().ingest_in_flight, 0);
  });

  it('a query running: ingest keeps its share of the workers, as many wait ready, and the rest are refused', async () => {
    running = 1;
    assert.equal(shares.ingestLimit(), 2);
    assert.equal(shares.bufferedEventsLimit(), 500);
    const refusedBefore = shares.status().ingest_refused_for_queries;
    const first = (await shares.admitIngest())!;
    const second = (await shares.admitIngest())!;
    assert.ok(first !== null && second !== null);
    const admitted: string[] = [];
    const third = shares.admitIngest().then((release) => (admitted.push('third'), release));
    const fourth = shares.admitIngest().then((release) => (admitted.push('fourth'), release));
    assert.equal(shares.status().ingest_waiting, 2);
    assert.equal(await shares.admitIngest(), null, 'the share and its queue are full');
    assert.equal(shares.status().ingest_refused_for_queries, refusedBefore + 1);

    first();
    first();
    const thirdRelease = (await third)!;
    assert.deepEqual(admitted, ['third'], 'a release hands its slot to the first waiter, and counts once');
    assert.equal(shares.status().ingest_in_flight, 2);

    // The queries end: the next release lets every waiter in.
    running = 0;
    second();
    const fourthRelease = (await fourth)!;
    assert.deepEqual(admitted, ['third', 'fourth']);
    thirdRelease();
    fourthRelease();
    assert.equal(shares.status().ingest_in_flight, 0);
    assert.equal(shares.status().ingest_waiting, 0);
  });

  it('a share too small for one worker still takes one request at a time', async () => {
    running = 3;
    settings = { ...settings, ingestShare: 0.1, ingestWorkers: 0 };
    assert.equal(shares.ingestLimit(), 1);
    const release = (await shares.admitIngest())!;
    assert.ok(release !== null);
    const waiting = shares.admitIngest();
    assert.equal(await shares.admitIngest(), null);
    release();
    (await waiting)!();
  });

  it('background work waits for running queries, and no longer than server.background_pause', async () => {
    // Nothing runs: it goes on at once and counts no pause.
    const pausedBefore = shares.status().background_paused_ms;
    await shares.backgroundTurn();
    assert.equal(shares.status().background_paused_ms, pausedBefore);

    running = 1;
    let done = false;
    const waiting = shares.backgroundTurn().then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(done, false, 'held while a query runs');
    running = 0;
    await waiting;

    running = 1;
    settings = { ...settings, backgroundPauseMs: 100 };
    const started = Date.now();
    await shares.backgroundTurn();
    assert.ok(Date.now() - started >= 100, 'waited its pause');
    assert.ok(shares.status().background_paused_ms >= 100);
  });

  it('server.ingest_share takes a number above 0 and at most 1', () => {
    assert.equal(coerceValue('server.ingest_share', 'fraction', 0.25), 0.25);
    assert.equal(coerceValue('server.ingest_share', 'fraction', '1'), 1);
    for (const bad of [0, 1.5, -0.1, 'half', true]) {
      assert.throws(
        () => coerceValue('server.ingest_share', 'fraction', bad),
        /server\.ingest_share: expected a number above 0 and at most 1/,
      );
    }
  });
});
