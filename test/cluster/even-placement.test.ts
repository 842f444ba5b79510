/**
 * A new cluster deals each bucket's partitions evenly over its nodes (node/cluster/ring.ts, the
 * `dealt` layout its ring epochs record): 3 nodes, events of many hosts and sources over twelve
 * hours, each node's own `/stats` within 20% of an even share at replication 1 and 2, and exactly
 * what placement computes from the events.
 */
import { strict as assert } from 'assert';
import { postJson } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, type ClusteredServer } from './helpers/clustered-servers';
import { addCounts, eventsByOwner } from './helpers/placement';
import type { TestEvent } from './helpers/test-events';

const IDS = ['node1', 'node2', 'node3'];
const HOUR_MS = 3_600_000;
const HOURS = 12;
const PER_REQUEST = 4000;

/**
 * Requests of web and app logs from 40 hosts and 3 sources, evenly over the twelve whole hours
 * before the current one. Each pair sends 33 or 34 events a request: none spills past its home.
 */
function requests(): TestEvent[][] {
  const startMs = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOURS * HOUR_MS;
  const total = HOURS * PER_REQUEST;
  const sources = ['nginx', 'checkout', 'search'];
  const events: TestEvent[] = Array.from({ length: total }, (_, i) => ({
    event: `request ${i}`,
    time: (startMs + Math.floor((i * HOURS * HOUR_MS) / total)) / 1000,
    host: `web-${i % 40}`,
    source: sources[Math.floor(i / 40) % sources.length]!,
  }));
  return Array.from({ length: HOURS }, (_, r) => events.slice(r * PER_REQUEST, (r + 1) * PER_REQUEST));
}

for (const replicationFactor of [1, 2]) {
  describe(`even placement: 3 nodes, replication ${replicationFactor}`, function () {
    this.timeout(120_000);
    let nodes: ClusteredServer[] = [];

    before(async () => {
      nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': replicationFactor } });
    });

    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    it('gives every node within 20% of an even share of the events', async () => {
      const expected = new Map<string, number>();
      const all = requests();
      for (const [i, events] of all.entries()) {
        const answer = await postJson(`${nodes[i % nodes.length]!.api}/ingest`, events);
        assert.equal(answer.status, 200, answer.text);
        addCounts(expected, eventsByOwner(events, { members: IDS, replicationFactor }));
      }
      const copies = HOURS * PER_REQUEST * replicationFactor;
      const held = await Promise.all(nodes.map((node) => storedEvents(node)));
      assert.equal(
        held.reduce((sum, count) => sum + count, 0),
        copies,
        `${replicationFactor} copies of every event: ${held.join(' / ')}`,
      );
      const even = copies / IDS.length;
      nodes.forEach((node, i) => {
        assert.equal(held[i], expected.get(node.id), `${node.id} holds the events of the keys it owns`);
        assert.ok(
          Math.abs(held[i]! / even - 1) <= 0.2,
          `${node.id} holds ${held[i]} events, an even share is ${even.toFixed(0)} (${held.join(' / ')})`,
        );
      });
    });
  });
}
