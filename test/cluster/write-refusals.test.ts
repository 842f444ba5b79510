/**
 * A live owner that refuses its share for another reason than backpressure fails the request with
 * 503 SHARD_UNAVAILABLE and the owner's reason: here the nodes disagree on cluster.partitions.
 */
import { strict as assert } from 'assert';
import { assertError } from '../helpers/api';
import { postJson } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, type ClusteredServer } from './helpers/clustered-servers';
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

  it('fails the request with 503 SHARD_UNAVAILABLE naming the owner and its reason', async () => {
    const [first, second] = nodes as [ClusteredServer, ClusteredServer];
    const events = taggedEvents('mismatch', 1000, 40);
    const share = eventsByOwner(events, { members: ['node1', 'node2'], replicationFactor: 1 });
    assert.ok(share.get('node2')! > 0, 'node2 owns some of the keys');
    const answer = await postJson(`${first.api}/ingest`, events);
    assertError(answer, 503, 'SHARD_UNAVAILABLE');
    assert.match(answer.body.error.message, /node node2 refused its \d+ events: .*every node of a cluster needs the same cluster\.partitions and cluster\.bucket_span/);
    assert.match(answer.body.error.message, /1 of 2 owners stored their share, which a retry may store again/);
    assert.equal(await storedEvents(second), 0);
    assert.equal(await storedEvents(first), share.get('node1'), 'node1 stored its own share (at least once on a retry)');
  });
});
