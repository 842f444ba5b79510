/**
 * Replication 1 of 3 real nodes: with an owner down, writes are acknowledged as hints on the node
 * that took them (every other node hears which node holds hints for which) and replayed once the
 * owner is back; a full owner's share becomes a hint once another share is stored, and a request
 * nothing of which could be stored is refused 503 BACKPRESSURE.
 */
import { strict as assert } from 'assert';
import { assertError, patchConfig, waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, waitForUp, type ClusteredServer } from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { addCounts, eventsByOwner, type RingLayout } from './helpers/placement';
import { taggedEvents } from './helpers/test-events';

const IDS = ['node1', 'node2', 'node3'];
const RING: RingLayout = { members: IDS, replicationFactor: 1 };

describe('cluster writes: replication 1, hints and backpressure', function () {
  this.timeout(120_000);
  let nodes: ClusteredServer[] = [];
  const expected = new Map<string, number>(IDS.map((id) => [id, 0]));

  before(async () => {
    nodes = await startClusteredServers(3);
  });

  after(async () => {
    await stopClusteredServers(nodes, true);
  });

  const node = (id: string): ClusteredServer => nodes.find((each) => each.id === id)!;
  const holdersFor = (observer: ClusteredServer, target: string) =>
    metricValue(observer, 'trawl_hints_pending_holders', `target="${target}"`);

  it('acknowledges writes for a down owner as hints, tells the other nodes, and replays them once it is back', async () => {
    const [first, second, third] = [node('node1'), node('node2'), node('node3')];
    await third.server.kill();
    await waitForUp([first, second], ['node1', 'node2']);

    const events = taggedEvents('owner-down', 3000, 50);
    const share = eventsByOwner(events, RING);
    assert.ok(share.get('node3')! > 0, 'node3 owns some of the keys');
    const answer = await postJson(`${first.api}/ingest`, events);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.accepted, events.length);
    addCounts(expected, share);

    assert.equal(await storedEvents(first), share.get('node1'));
    assert.equal(await storedEvents(second), share.get('node2'));
    assert.ok((await metricValue(first, 'trawl_hints_pending', 'target="node3"')) > 0, 'node1 holds hints for node3');
    assert.equal(await metricValue(first, 'trawl_write_share_events_total', 'outcome="hinted"'), share.get('node3'));
    // node2 holds none itself, but hears from node1's heartbeats that node3 has hints pending.
    assert.equal(await metricValue(second, 'trawl_hints_pending', 'target="node3"'), 0);
    await waitUntil(async () => (await holdersFor(second, 'node3')) === 1, 10_000, 'node2 to hear that node1 holds hints for node3');

    await third.restart();
    await waitForUp(nodes, IDS);
    await waitUntil(async () => (await storedEvents(third)) === share.get('node3'), 30_000, 'node3 to receive its replayed share');
    // node3 stores a hint before node1 hears it did and drops it: the pending count follows.
    await waitUntil(
      async () => (await metricValue(first, 'trawl_hints_pending', 'target="node3"')) === 0,
      10_000,
      'node1 to drop the hints node3 acknowledged',
    );
    await waitUntil(async () => (await holdersFor(second, 'node3')) === 0, 10_000, 'node2 to hear the hints for node3 are replayed');
    for (const each of nodes) assert.equal(await storedEvents(each), expected.get(each.id), `${each.id} holds exactly its keys`);
  });

  it("keeps a full owner's share as a hint when the node that took the request stored its own, and answers 503 BACKPRESSURE when nothing could be stored", async () => {
    const [first, second] = [node('node1'), node('node2')];
    const limit = (await request(`${second.api}/config`)).body.data.ingest.max_buffered_events as number;
    const patched = await patchConfig(second.server, { ingest: { max_buffered_events: 10 } });
    assert.equal(patched.status, 200, patched.text);
    const before = await storedEvents(second);
    let share: Map<string, number>;
    try {
      const events = taggedEvents('full-owner', 2000, 50);
      share = eventsByOwner(events, RING);
      assert.ok(share.get('node2')! > 10 && share.get('node1')! > 0, 'node2 owns more than its buffer takes, node1 some');
      const answer = await postJson(`${first.api}/ingest`, events);
      assert.equal(answer.status, 200, answer.text);
      addCounts(expected, share);
      assert.equal(await storedEvents(second), before, 'node2 stored nothing yet');
      assert.ok((await metricValue(first, 'trawl_hints_pending', 'target="node2"')) > 0, 'node1 keeps node2 share as hints');
      assert.ok((await metricValue(first, 'trawl_write_shares_total', 'outcome="refused"')) >= 1);

      const refused = await postJson(`${second.api}/ingest`, taggedEvents('full-owner-direct', 2000, 50));
      assertError(refused, 503, 'BACKPRESSURE');
      assert.match(
        refused.body.error.message,
        /write buffer holds \d+ events \(limit ingest\.max_buffered_events = 10\); nothing was stored/,
      );
    } finally {
      await patchConfig(second.server, { ingest: { max_buffered_events: limit } });
    }
    await waitUntil(
      async () => (await metricValue(first, 'trawl_hints_pending', 'target="node2"')) === 0,
      30_000,
      'node2 to take its hints once it has room',
    );
    assert.equal(await storedEvents(second), before + share.get('node2')!);
    for (const each of nodes) assert.equal(await storedEvents(each), expected.get(each.id), `${each.id} holds exactly its keys`);
  });
});
