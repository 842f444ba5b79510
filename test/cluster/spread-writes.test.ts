/**
 * One write request whose events fall in many partition keys (an hour at cluster.bucket_span 10s,
 * several hosts and sources, so hundreds of keys over three nodes at replication 2) is stored
 * exactly: every event on two nodes, and the count of every 10 s bucket, computed from the test's
 * own events, is what a query through each node answers.
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { postJson } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, type ClusteredServer } from './helpers/clustered-servers';
import type { TestEvent } from './helpers/test-events';

const BUCKET_MS = 10_000;
const HOUR_MS = 3_600_000;
const EVENTS = 2_000;

/**
 * `EVENTS` events over an hour from `startMs` (a bucket's start), at uneven gaps so buckets hold
 * different counts and some none, from seven hosts and three sources.
 */
function spreadEvents(startMs: number): TestEvent[] {
  let state = 7;
  const next = (): number => (state = (state * 48271) % 2147483647) / 2147483647;
  const events: TestEvent[] = [];
  let timeMs = startMs;
  for (let i = 0; i < EVENTS; i++) {
    timeMs += Math.floor(next() * ((2 * HOUR_MS) / EVENTS));
    events.push({
      event: `spread event ${i}`,
      time: Math.min(timeMs, startMs + HOUR_MS - 1) / 1000,
      host: `host-${i % 7}`,
      source: `source-${i % 3}`,
    });
  }
  return events;
}

describe('cluster writes: one request spread over an hour of 10 s buckets (3 nodes, replication 2)', function () {
  this.timeout(120_000);
  let nodes: ClusteredServer[] = [];

  before(async () => {
    nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 2, 'cluster.bucket_span': '10s' } });
  });

  after(async () => {
    await stopClusteredServers(nodes, true);
  });

  it("stores every event on two nodes and answers every bucket's count through every node", async () => {
    // Twenty hours ahead: past every ring epoch the cluster decided at its start (test-events.ts).
    const startMs = Math.ceil((Date.now() + 20 * HOUR_MS) / BUCKET_MS) * BUCKET_MS;
    const events = spreadEvents(startMs);
    const perBucket = new Map<number, number>();
    for (const event of events) {
      const bucket = Math.floor((event.time * 1000) / BUCKET_MS) * BUCKET_MS;
      perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + 1);
    }
    assert.ok(perBucket.size > 300, `the events fall in ${perBucket.size} buckets`);
    assert.ok(new Set(perBucket.values()).size > 3, 'buckets hold different counts');

    const answer = await postJson(`${nodes[0]!.api}/ingest`, events);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.accepted, EVENTS, answer.text);

    // A part an owner did not acknowledge within cluster.write_timeout (a loaded machine) is kept
    // as a hint and replayed: the request is stored exactly twice once replay is done.
    let stored: number[] = [];
    await waitUntil(
      async () => {
        stored = await Promise.all(nodes.map((node) => storedEvents(node)));
        return stored.reduce((sum, count) => sum + count, 0) >= 2 * EVENTS;
      },
      60_000,
      'every event stored twice',
    );
    assert.equal(
      stored.reduce((sum, count) => sum + count, 0),
      2 * EVENTS,
      `every event on two nodes: ${stored.join(', ')}`,
    );
    for (const [i, count] of stored.entries())
      assert.ok(count > 0 && count < EVENTS, `${nodes[i]!.id} holds part of the request: ${count}`);

    const expected = [...perBucket].sort(([a], [b]) => a - b).map(([bucket, count]) => [bucket, count]);
    const range = { from: new Date(startMs - HOUR_MS).toISOString(), to: new Date(startMs + 2 * HOUR_MS).toISOString() };
    for (const node of nodes) {
      // A shard that does not answer in time makes an answer partial; only a whole answer is compared.
      let query: Awaited<ReturnType<typeof postJson>> | null = null;
      await waitUntil(
        async () => {
          query = await postJson(`${node.api}/query`, {
            q: 'from main | stats count() as n by bin(_time, 10s) as bucket | sort bucket',
            limit: 1000,
            ...range,
          });
          assert.equal(query.status, 200, `${node.id}: ${query.text}`);
          return query.body.meta.partial === undefined;
        },
        60_000,
        `a whole answer through ${node.id}`,
      );
      const rows = (query!.body.data.rows as [string | number, number][]).map(([bucket, n]) => [
        typeof bucket === 'number' ? bucket : Date.parse(bucket),
        n,
      ]);
      assert.deepEqual(rows, expected, `every bucket's count through ${node.id}`);
    }
  });
});
