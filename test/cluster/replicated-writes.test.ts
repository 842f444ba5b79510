/**
 * Writes in a cluster of real processes: every event is stored on each of its key's owners
 * (replication 2 of 3 nodes), a hot host spreads over every node, and a killed owner's share is
 * kept as a durable hint and replayed once it is back: held exactly twice, none lost, none twice.
 * Counts are each node's own `/stats` (its storage alone); what each node should hold is computed
 * from the events with the ring and the spill rule.
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { postJson } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, waitForUp, type ClusteredServer } from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { addCounts, eventsByOwner, type RingLayout } from './helpers/placement';
import { taggedEvents, type TestEvent } from './helpers/test-events';

const IDS = ['node1', 'node2', 'node3'];
const RING: RingLayout = { members: IDS, replicationFactor: 2 };

describe('cluster writes: replication 2 of 3 nodes', function () {
  this.timeout(120_000);
  let nodes: ClusteredServer[] = [];
  /** What each node should hold, over every request sent so far. */
  const expected = new Map<string, number>(IDS.map((id) => [id, 0]));
  let sent = 0;

  before(async () => {
    nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 2 } });
  });

  after(async () => {
    await stopClusteredServers(nodes, true);
  });

  const node = (id: string): ClusteredServer => nodes.find((each) => each.id === id)!;

  async function ingest(through: ClusteredServer, events: TestEvent[]): Promise<void> {
    const answer = await postJson(`${through.api}/ingest`, events);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.accepted, events.length, answer.text);
    addCounts(expected, eventsByOwner(events, RING));
    sent += events.length;
  }

  async function assertHeldTwice(on: readonly ClusteredServer[]): Promise<void> {
    const counts = await Promise.all(on.map((each) => storedEvents(each)));
    assert.equal(
      counts.reduce((sum, count) => sum + count, 0),
      2 * sent,
      `every event on two nodes: ${counts.join(', ')}`,
    );
    on.forEach((each, i) => assert.equal(counts[i], expected.get(each.id), `${each.id} holds the events of the keys it owns`));
  }

  it('stores every event on exactly the two owners of its key', async () => {
    const events = taggedEvents('mixed', 3000, 60);
    await ingest(node('node1'), events);
    const share = eventsByOwner(events, RING);
    assert.equal(share.size, 3);
    for (const id of IDS) assert.ok(share.get(id)! > 0, `${id} owns some of the keys (test data spreads)`);
    await assertHeldTwice(nodes);
    const sentShares = await metricValue(node('node1'), 'trawl_write_shares_total', 'outcome="sent"');
    assert.ok(sentShares >= 1, 'node1 sent shares to the other owners');
    assert.equal(
      await metricValue(node('node1'), 'trawl_grpc_client_calls_total', 'service="ShardWrite",method="Write",outcome="ok"'),
      sentShares,
    );
    assert.equal(
      (await metricValue(node('node1'), 'trawl_write_share_events_total', 'outcome="local"')) +
        (await metricValue(node('node1'), 'trawl_write_share_events_total', 'outcome="sent"')),
      2 * events.length,
      'two copies of every event, here or sent',
    );
  });

  it('spreads one host sending every event over all three nodes (the hot-source spill)', async () => {
    const events = taggedEvents('hot', 10_000, 1);
    const share = eventsByOwner(events, RING);
    for (const id of IDS) assert.ok(share.get(id)! > 0, `${id} owns part of the one host's events`);
    const before = await Promise.all(nodes.map((each) => storedEvents(each)));
    await ingest(node('node2'), events);
    const after = await Promise.all(nodes.map((each) => storedEvents(each)));
    nodes.forEach((each, i) => assert.equal(after[i]! - before[i]!, share.get(each.id), `${each.id} took its part of the one host`));
    await assertHeldTwice(nodes);
  });

  it("keeps a killed owner's share as a durable hint and replays it once the owner is back: held exactly twice", async () => {
    const [first, second, third] = [node('node1'), node('node2'), node('node3')];
    await third.server.kill();
    await waitForUp([first, second], ['node1', 'node2']);

    const events = taggedEvents('while-down', 4000, 40);
    const missed = eventsByOwner(events, RING).get('node3')!;
    assert.ok(missed > 0, 'node3 owns some of the keys written while it is down');
    await ingest(first, events);
    const pending = await metricValue(first, 'trawl_hints_pending', 'target="node3"');
    assert.ok(pending > 0, 'node1 holds hints for node3');
    assert.equal(await metricValue(first, 'trawl_write_share_events_total', 'outcome="hinted"'), missed, "node3's events were hinted");

    // The hints are durable: the holder killed too and started again still has them.
    await first.server.kill();
    await first.restart();
    assert.equal(await metricValue(first, 'trawl_hints_pending', 'target="node3"'), pending, 'the hints survive kill -9');

    await third.restart();
    await waitForUp(nodes, IDS);
    await waitUntil(
      async () => (await metricValue(first, 'trawl_hints_pending', 'target="node3"')) === 0,
      30_000,
      'hints for node3 replayed',
    );
    assert.equal(await metricValue(first, 'trawl_hints_replayed_total', 'target="node3"'), pending, 'each hint replayed once');
    assert.ok((await metricValue(first, 'trawl_hints_replayed_bytes_total', 'target="node3"')) > 0);
    assert.equal(
      await metricValue(first, 'trawl_grpc_client_calls_total', 'service="ShardWrite",method="ReplayHint",outcome="ok"'),
      pending,
    );
    assert.equal(
      await metricValue(third, 'trawl_shard_write_received_events_total', 'kind="hint"'),
      missed,
      'node3 received its missed events as hints',
    );
    await assertHeldTwice(nodes);
  });
});
