/**
 * GET /fields, GET /fields/{name}/values and GET /sources in a cluster of three (replication 2):
 * the events ingested a third through each node (flushed every 200 ms), and every node
 * answers what the test computes from the events, each key counted once though two nodes hold
 * it. With a node killed, the other owners answer for its keys and the answers stay exact.
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import {
  assertFields,
  discoveryEvent,
  expectedSources,
  expectedValues,
  sourcesWithoutBytes,
  type IngestEvent,
} from '../helpers/discovery-data';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, waitForCaughtUp, waitForUp, type ClusteredServer } from './helpers/clustered-servers';

const EVENTS = Array.from({ length: 1800 }, (_, i) => discoveryEvent(i));

async function ingest(node: ClusteredServer, events: readonly IngestEvent[]): Promise<void> {
  const answer = await postJson(`${node.api}/ingest`, events);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.accepted, events.length);
}

const get = (node: ClusteredServer, path: string) => request(`${node.api}${path}`);

/** Every node's answers equal what the events tell; `range` as query parameters (`from=...&to=...&`) or ''. */
async function assertAnswers(nodes: readonly ClusteredServer[], context: string, range = ''): Promise<void> {
  const answers = [];
  for (const node of nodes) {
    const where = `${context}, through ${node.id}`;
    const fields = await get(node, `/fields?${range}`);
    assert.equal(fields.status, 200, fields.text);
    assert.equal(fields.body.meta.partial, undefined, `${where}: whole`);
    assertFields(fields.body.data.fields, EVENTS, where);
    const status = await get(node, `/fields/status/values?${range}limit=5`);
    assert.equal(status.status, 200, `${where}: ${status.text}`);
    assert.deepEqual(status.body.data, expectedValues(EVENTS, 'status', 'integer', 5), `${where}: status values`);
    const user = await get(node, `/fields/user/values?${range}limit=100`);
    assert.deepEqual(user.body.data, expectedValues(EVENTS, 'user', 'string', 100), `${where}: user values`);
    const sources = await get(node, `/sources?${range}`);
    assert.equal(sources.status, 200, sources.text);
    assert.deepEqual(sourcesWithoutBytes(sources.body.data.sources), expectedSources(EVENTS), `${where}: sources`);
    answers.push({ fields: fields.body.data, sources: sources.body.data });
  }
  for (const answer of answers.slice(1)) assert.deepEqual(answer, answers[0], `${context}: every node answers alike`);
}

describe('cluster: discovery at replication factor 2', function () {
  this.timeout(180_000);
  let nodes: ClusteredServer[];

  before(async () => {
    nodes = await startClusteredServers(3, {
      // A failure timeout that a loaded machine does not reach between heartbeats: only the kill takes a node down.
      set: { 'cluster.replication_factor': 2, 'cluster.failure_timeout': '4s', retention: '3650d', 'storage.flush_interval': '200ms' },
    });
    await waitForCaughtUp(nodes);
    const third = EVENTS.length / 3;
    await Promise.all(nodes.map((node, i) => ingest(node, EVENTS.slice(i * third, (i + 1) * third))));
    // Every node sees every event once through the cluster (each key asked of one owner).
    for (const node of nodes) {
      await waitUntil(
        async () => (await get(node, '/fields?prefix=_time')).body?.data?.fields?.[0]?.count === EVENTS.length,
        30_000,
        `${node.id} to count every event`,
      );
    }
  });

  after(async () => {
    await stopClusteredServers(nodes ?? []);
  });

  it('every node answers fields, values and sources for the whole cluster, each event once', async () => {
    await assertAnswers(nodes, 'all up');
  });

  it('answers the same with a node killed: its keys are read from their other owners', async () => {
    const victim = nodes[2]!;
    await victim.server.kill();
    const survivors = nodes.slice(0, 2);
    await waitForUp(
      survivors,
      survivors.map((node) => node.id),
    );
    // The day of the events: with a node down, a range of years has every key of it enumerated
    // to find the ones no live owner holds, which is slow enough to starve the nodes' Keys calls.
    await assertAnswers(survivors, `${victim.id} killed`, 'from=2023-12-31T00:00:00Z&to=2024-01-02T00:00:00Z&');
  });
});
