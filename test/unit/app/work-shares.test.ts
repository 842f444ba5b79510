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

  it('no query running: no bound on ingest requests, the whole write buffer', () => {
    assert.equal(shares.ingestLimit(), null);
    assert.equal(shares.bufferedEventsLimit(), 1000);
    const releases = Array.from({ length: 10 }, () => shares.admitIngest());
    assert.ok(releases.every((release) => release !== null));
    for (const release of releases) release!();
    assert.equal(shares.status().ingest_in_flight, 0);
  });

  it('a query running: ingest keeps its share of the workers and of the buffer, and is refused beyond it', () => {
    running = 1;
    assert.equal(shares.ingestLimit(), 2);
    assert.equal(shares.bufferedEventsLimit(), 500);
    const refusedBefore = shares.status().ingest_refused_for_queries;
    const first = shares.admitIngest();
    const second = shares.admitIngest();
    assert.ok(first !== null && second !== null);
    assert.equal(shares.admitIngest(), null);
    assert.equal(shares.status().ingest_refused_for_queries, refusedBefore + 1);
    first();
    first();
    assert.equal(shares.status().ingest_in_flight, 1, 'a release counts once');
    const third = shares.admitIngest();
    assert.ok(third !== null);
    second();
    third();
  });

  it('a share too small for one worker still takes one request at a time', () => {
    running = 3;
    settings = { ...settings, ingestShare: 0.1, ingestWorkers: 0 };
    assert.equal(shares.ingestLimit(), 1);
    const release = shares.admitIngest();
    assert.ok(release !== null);
    assert.equal(shares.admitIngest(), null);
    release();
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
