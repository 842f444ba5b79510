/**
 * A live owner that refuses its share for a reason no retry changes (here the nodes disagree on
 * cluster.partitions): the request that found out had stored its other share, so the refused one
 * waits as a hint (and keeps the owner from answering for its keys); every later request with a
 * share for that owner is refused 503 SHARD_UNAVAILABLE with the owner's reason, nothing stored.
 */
import { strict as assert } from 'assert';
import { assertError } from '../helpers/api';
import { postJson } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, type ClusteredServer } from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { eventsByOwner } from './helpers/placement';
import { taggedEvents } from './helpers/test-events';

describe('cluster writes: an owner that refuses its share', function () {
  this.timeout(60_000);
  let nodes: ClusteredServer[] = [];

  before(async () => {
    nodes = await startClusteredServers(2, { setForNode: (i): Record<string, number> => (i === 1 ? { 'cluster.partitions': 4 } : {}) });
  });

  after(async () => {
    await stopClusteredServers(nodes, true);
  });

  it("keeps the refused share as a hint, then refuses requests for that owner whole, naming the owner's reason", async () => {
    const [first, second] = nodes as [ClusteredServer, ClusteredServer];
    const events = taggedEvents('mismatch', 1000, 40);
    const share = eventsByOwner(events, { members: ['node1', 'node2'], replicationFactor: 1 });
    assert.ok(share.get('node2')! > 0, 'node2 owns some of the keys');
    const answer = await postJson(`${first.api}/ingest`, events);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(await storedEvents(first), share.get('node1'));
    assert.equal(await metricValue(first, 'trawl_write_share_events_total', 'outcome="hinted"'), share.get('node2'));

    const refused = await postJson(`${first.api}/ingest`, taggedEvents('mismatch-again', 1000, 40));
    assertError(refused, 503, 'SHARD_UNAVAILABLE');
    assert.match(
      refused.body.error.message,
      /node node2 refuses writes from node node1: .*every node of a cluster needs the same cluster\.partitions and cluster\.bucket_span; nothing was stored/,
    );
    assert.equal(await storedEvents(first), share.get('node1'), 'the refused request stored nothing');
    assert.equal(await storedEvents(second), 0);
  });
});
