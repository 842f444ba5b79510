/**
 * A cluster node stores the partitions of a piece that have the same owners in one segment (split
 * in shares where every node owns every partition), and a coordinator asks one owner for all of
 * such a group's keys. Three nodes at replication 2, then two, hold one hour of events from
 * hundreds of host/source pairs (every one of the 16 partitions): a query reads a few segments
 * where one per partition would be 16, answers exactly through every node, and still does once a
 * node is killed (each of its groups goes whole to the other owner). A peer call that names only
 * some keys of a group is refused with a reason, never answered short or failed INTERNAL.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import { GROUP_SPLIT_REFUSAL } from '../../node/cluster/fragment-serving';
import type * as wire from '../../node/cluster/grpc/messages';
import { PeerCallError, PeerClients } from '../../node/cluster/grpc/peers';
import { SHARD_QUERY } from '../../node/cluster/grpc/proto';
import { protocolVersion } from '../../node/cluster/grpc/wire';
import { waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, waitForUp, type ClusteredServer } from './helpers/clustered-servers';
import { shardFragment } from './helpers/shard-fragment';
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

/** How a call naming keys of a node ended: OK, or the refusal's status and reason. */
async function outcomeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'OK';
  } catch (error) {
    assert.ok(error instanceof PeerCallError, String(error));
    return `${grpc.status[error.code]} ${error.reason ?? error.details}`;
  }
}

/** One Query call as a coordinator makes it, to its end. */
function queryCall(peers: PeerClients, address: string, request: wire.ShardQueryRequest): Promise<void> {
  const method = SHARD_QUERY.Query;
  return new Promise((resolve, reject) => {
    const call = peers.client(address).makeServerStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, request, {
      deadline: Date.now() + 30_000,
    });
    call.on('data', () => undefined);
    call.on('error', (error: grpc.ServiceError) => reject(PeerCallError.from(address, error)));
    call.on('end', () => resolve());
  });
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

      // Each key a node holds, named alone: a key of a group of two or more is refused, in Catalog
      // and Query alike. A node holds its keys of the hour in at most two owner sets (RF2), so
      // at least one of its groups has more than one of the 16 partitions.
      const peers = new PeerClients();
      try {
        const address = nodes[0]!.grpc;
        const window = { from_micros: startMs * 1000, to_micros: (startMs + HOUR_MS) * 1000 };
        const catalogOf = (keys: string[]) =>
          peers.call(address, SHARD_QUERY.Catalog, { protocol_version: protocolVersion(), keys, ...window, prefix: '', source: '' }, 5_000);
        const { keys } = await peers.call(
          address,
          SHARD_QUERY.Keys,
          { protocol_version: protocolVersion(), index_patterns: ['main'], ...window },
          5_000,
        );
        assert.ok(keys.length > 2, `${nodes[0]!.id} holds keys of the hour: ${keys.join(' ')}`);
        const outcomes = new Map<string, number>();
        for (const key of keys) {
          const catalog = await outcomeOf(catalogOf([key]));
          const query = await outcomeOf(
            queryCall(peers, address, shardFragment('from main | stats count()', startMs, startMs + HOUR_MS, { keys: [key] })),
          );
          assert.equal(query, catalog, `Query and Catalog naming ${key} alone`);
          outcomes.set(catalog, (outcomes.get(catalog) ?? 0) + 1);
        }
        const split = `FAILED_PRECONDITION ${GROUP_SPLIT_REFUSAL}`;
        assert.ok((outcomes.get(split) ?? 0) > 0, `some key named alone is refused: ${JSON.stringify([...outcomes])}`);
        assert.deepEqual(
          [...outcomes.keys()].filter((outcome) => outcome !== split && outcome !== 'OK'),
          [],
          'every call is answered or refused as a split group',
        );
        // All of a node's keys together name every group whole.
        assert.equal(await outcomeOf(catalogOf(keys)), 'OK');
      } finally {
        peers.close();
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
