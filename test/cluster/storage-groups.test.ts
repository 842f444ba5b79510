/**
 * A cluster node stores the partitions of a piece that have the same owners in one segment (split
 * in shares where every node owns every partition), and a coordinator asks one owner for all of
 * such a group's keys. Three nodes at replication 2, then two, hold one hour of events from
 * hundreds of host/source pairs (every one of the 16 partitions): a query reads a few segments
 * where one per partition would be 16, answers exactly through every node, and still does once a
 * node is killed (each of its groups goes whole to the other owner).
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, waitForUp, type ClusteredServer } from './helpers/clustered-servers';
import type { TestEvent } from './helpers/test-events';

const HOUR_MS = 3_600_000;
const EVENTS = 2_400;
const PARTITIONS = 16;

function groupEvents(startMs: number): TestEvent[] {
  return Array.from({ length: EVENTS }, (_, i) => ({
    event: `grouped event ${i}`,
    time: (startMs + Math.floor((i * (HOUR_MS - 1)) / EVENTS)) / 1000,
    host: `host-${i % 120}`,
    source: `source-${i % 7}`,
  }));
}

function countsByHost(events: readonly TestEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of events) counts[event.host as string] = (counts[event.host as string] ?? 0) + 1;
  return counts;
}

function describeGroups(count: number): void {
  describe(`cluster storage groups: a piece read as a few segments, not one per partition (${count} nodes, replication 2)`, function () {
    this.timeout(120_000);
    let nodes: ClusteredServer[] = [];

    before(async () => {
      nodes = await startClusteredServers(count, { set: { 'cluster.replication_factor': 2, 'cluster.partitions': PARTITIONS } });
    });

    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    it('answers exactly through every node from group segments, and whole with a node killed', async () => {
      // Twenty hours ahead: past every ring epoch the cluster decided at its start (test-events.ts).
      const startMs = Math.ceil((Date.now() + 20 * HOUR_MS) / HOUR_MS) * HOUR_MS;
      const events = groupEvents(startMs);
      const expected = countsByHost(events);
      const answer = await postJson(`${nodes[0]!.api}/ingest`, events);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.data.accepted, EVENTS, answer.text);
      await waitUntil(
        async () => {
          const stored = await Promise.all(nodes.map((node) => storedEvents(node)));
          if (stored.reduce((sum, count) => sum + count, 0) < 2 * EVENTS) return false;
          const statuses = await Promise.all(nodes.map((node) => request(`${node.api}/stats`)));
          return statuses.every((status) => status.body.data.buffered_events === 0);
        },
        60_000,
        'every event stored twice and flushed',
      );

      const range = { from: new Date(startMs).toISOString(), to: new Date(startMs + HOUR_MS).toISOString() };
      const ask = async (node: ClusteredServer) => {
        const result = await postJson(`${node.api}/query`, {
          q: 'from main | stats count() by host',
          ...range,
          profile: 'basic',
          limit: 1000,
        });
        assert.equal(result.status, 200, result.text);
        const counts: Record<string, number> = {};
        for (const [host, count] of result.body.data.rows as [string, number][]) counts[host] = count;
        return { counts, meta: result.body.meta };
      };
      for (const node of nodes) {
        const { counts, meta } = await ask(node);
        assert.deepEqual(counts, expected, `through ${node.id}`);
        assert.equal(meta.partial ?? false, false);
        // A storage group per owner set of a piece (on two nodes, the one set's two shares), a flush or two each, against one segment a partition.
        assert.ok(
          meta.profile.segments_scanned > 0 && meta.profile.segments_scanned < PARTITIONS,
          `through ${node.id}: ${meta.profile.segments_scanned} segments read`,
        );
      }

      const killed = nodes[count - 1]!;
      await killed.server.kill();
      const alive = nodes.slice(0, count - 1);
      await waitForUp(
        alive,
        alive.map((node) => node.id),
      );
      for (const node of alive) {
        const { counts, meta } = await ask(node);
        assert.deepEqual(counts, expected, `through ${node.id} with ${killed.id} killed`);
        assert.equal(meta.partial ?? false, false, JSON.stringify(meta));
      }
    });
  });
}

describeGroups(3);
describeGroups(2);
