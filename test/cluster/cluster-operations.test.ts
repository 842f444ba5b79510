/**
 * Operating a cluster of real processes: it forms from its seeds (ingest refused until then, and
 * then the first events spread over every seed); a fourth node joins (data after its epoch reaches
 * it, nothing older moves, totals stay exact through every node), then two of the four are killed
 * (the others answer what they hold, marked partial); the master is killed (ingest and
 * queries go on, a saved-query write answers 503 naming it, and after its restart every saved query
 * is there and the hints it missed are replayed); a hint holder lost for good keeps its target
 * from answering until an operator removes it; an operator takes a node out of future placement
 * through any node, with the HTTP endpoint or `scripts/trawl cluster remove`.
 * What each node should hold is computed from the events with the ring and the spill rule.
 */
import { strict as assert } from 'assert';
import { execFile } from 'child_process';
import path from 'path';
import { promisify } from 'util';
import { assertError, waitUntil } from '../helpers/api';
import { freePort, postJson, REPO_ROOT, request, TestServer } from '../helpers/server';
import {
  FAST_MEMBERSHIP,
  joinClusteredServer,
  startClusteredServers,
  stopClusteredServers,
  storedEvents,
  waitForUp,
  type ClusteredServer,
} from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { addCounts, eventsByOwner, eventsWithOwnerIn, type RingLayout } from './helpers/placement';
import { taggedEvents, type TestEvent } from './helpers/test-events';

const run = promisify(execFile);

/** Events timed within the last eleven minutes: buckets placed by ring epoch 0. */
function eventsNow(tag: string, count: number, hosts: number): TestEvent[] {
  const time = Math.floor(Date.now() / 1000) - 60;
  return Array.from({ length: count }, (_, i) => ({
    event: `${tag} event ${i}`,
    time: time - (i % 600),
    host: `${tag}-host-${i % hosts}`,
    source: 'app',
  }));
}

async function ingest(through: ClusteredServer, events: TestEvent[]): Promise<void> {
  const answer = await postJson(`${through.api}/ingest`, events);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.accepted, events.length, answer.text);
}

/** count() over a range holding every test event, through `node`. */
async function countThrough(node: ClusteredServer): Promise<{ n: number; partial: boolean }> {
  const from = new Date(Date.now() - 86_400_000).toISOString();
  const to = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const answer = await postJson(`${node.api}/query`, { q: 'from main | stats count() as n', from, to });
  assert.equal(answer.status, 200, answer.text);
  return { n: answer.body.data.rows[0][0] as number, partial: answer.body.meta.partial === true };
}

describe('cluster operations', function () {
  this.timeout(120_000);

  describe('a fourth node joins a cluster of three (replication 2); then two are killed', () => {
    let nodes: ClusteredServer[] = [];
    const THREE = ['node1', 'node2', 'node3'];
    const FOUR = [...THREE, 'node4'];
    const RING_OF_THREE: RingLayout = { members: THREE, replicationFactor: 2 };
    const RING_OF_FOUR: RingLayout = { members: FOUR, replicationFactor: 2 };
    before(async () => {
      nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 2 } });
    });
    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    // One scenario: the kill is checked against what the join placed.
    it('takes data after its epoch, moves nothing older, and every node answers the exact total; with two of the four killed, answers what the others hold and says it is partial', async () => {
      const expected = new Map<string, number>(FOUR.map((id) => [id, 0]));
      const old = eventsNow('old', 3000, 60);
      await ingest(nodes[0]!, old);
      addCounts(expected, eventsByOwner(old, RING_OF_THREE));
      const before = await Promise.all(nodes.map(storedEvents));

      const fourth = await joinClusteredServer(nodes, 'node4', { set: { 'cluster.replication_factor': 2 } });
      nodes.push(fourth);
      await waitForUp(nodes, FOUR);
      await waitUntil(
        async () =>
          ((await request(`${nodes[0]!.api}/cluster/status`)).body.data.nodes as { id: string; epochs: number[] }[]).every(
            (node) => node.epochs.length > 0,
          ),
        10_000,
        'node4 to be in a ring epoch',
      );
      assert.deepEqual(await Promise.all(nodes.slice(0, 3).map(storedEvents)), before, 'nothing moved when node4 joined');
      assert.equal(await storedEvents(fourth), 0);

      // Events 20 hours ahead fall past node4's epoch (a bucket or two ahead); events of now stay with the older ring.
      const later = taggedEvents('later', 4000, 80);
      await ingest(fourth, later);
      const laterShare = eventsByOwner(later, RING_OF_FOUR);
      assert.ok(laterShare.get('node4')! > 0, 'the ring with node4 gives it some of the later keys');
      addCounts(expected, laterShare);
      const again = eventsNow('again', 1000, 30);
      await ingest(fourth, again);
      addCounts(expected, eventsByOwner(again, RING_OF_THREE));
      const sent = old.length + later.length + again.length;

      const held = await Promise.all(nodes.map(storedEvents));
      nodes.forEach((node, i) => assert.equal(held[i], expected.get(node.id), `${node.id} holds the events of the keys it owns`));
      assert.equal(
        held.reduce((sum, n) => sum + n, 0),
        2 * sent,
        'every event on two nodes',
      );
      for (const node of nodes) assert.deepEqual(await countThrough(node), { n: sent, partial: false }, `the total through ${node.id}`);

      // Two of the four killed.
      await Promise.all([nodes[0]!.server.kill(), nodes[1]!.server.kill()]);
      await waitForUp(nodes.slice(2), ['node3', 'node4']);
      const alive = new Set(['node3', 'node4']);
      const heldAlive =
        eventsWithOwnerIn(old, RING_OF_THREE, alive) +
        eventsWithOwnerIn(later, RING_OF_FOUR, alive) +
        eventsWithOwnerIn(again, RING_OF_THREE, alive);
      assert.ok(heldAlive < sent, 'some events had both owners among the killed nodes');
      for (const node of nodes.slice(2))
        assert.deepEqual(await countThrough(node), { n: heldAlive, partial: true }, `what ${node.id} answers`);
    });
  });

  describe('the master killed (replication 2 of 3)', () => {
    let nodes: ClusteredServer[] = [];
    before(async () => {
      nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 2 } });
    });
    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    it('ingest and queries go on, saved-query writes answer 503 naming it; after its restart the saved queries are there and its hints replayed', async () => {
      const [master, second, third] = nodes as [ClusteredServer, ClusteredServer, ClusteredServer];
      const saved: string[] = [];
      for (const name of ['errors', 'slow requests']) {
        const created = await postJson(`${second.api}/queries`, { name, q: 'from main | where status >= 500' });
        assert.equal(created.status, 201, created.text);
        saved.push(created.body.data.id as string);
      }
      const panel = {
        id: 'p1',
        title: '5xx',
        type: 'stat',
        q: 'from main | where status >= 500 | stats count()',
        position: { x: 0, y: 0, w: 3, h: 2 },
      };
      const dashboard = await postJson(`${second.api}/dashboards`, { name: 'web', panels: [panel] });
      assert.equal(dashboard.status, 201, dashboard.text);
      const first = taggedEvents('before', 2000, 40);
      await ingest(second, first);

      await master.server.kill();
      await waitForUp([second, third], ['node2', 'node3']);
      const during = taggedEvents('during', 3000, 60);
      await ingest(third, during);
      const total = first.length + during.length;
      for (const node of [second, third])
        assert.deepEqual(await countThrough(node), { n: total, partial: false }, `the total through ${node.id}`);
      const refused = await postJson(`${third.api}/queries`, { name: 'while down', q: 'from main' });
      assertError(refused, 503, 'MASTER_UNAVAILABLE');
      assert.match(refused.body.error.message, /node1/);
      const listed = await request(`${third.api}/queries`);
      assert.equal(listed.status, 200, 'reads answer while the master is down');
      assert.deepEqual(listed.body.data.queries.map((query: { id: string }) => query.id).sort(), [...saved].sort());
      assert.deepEqual(
        (await request(`${third.api}/dashboards/${dashboard.body.data.id}`)).body,
        dashboard.body,
        'a dashboard written through node2 reads on node3',
      );
      assert.ok((await metricValue(third, 'trawl_hints_pending', 'target="node1"')) > 0, "node3 keeps node1's share as hints");

      await master.restart();
      await waitForUp(nodes, ['node1', 'node2', 'node3']);
      const afterRestart = await request(`${master.api}/queries`);
      assert.deepEqual(
        afterRestart.body.data.queries.map((query: { id: string }) => query.id).sort(),
        [...saved].sort(),
        'the restarted master has every saved query',
      );
      assert.deepEqual(
        (await request(`${master.api}/dashboards`)).body.data.dashboards.map((item: { id: string }) => item.id),
        [dashboard.body.data.id],
      );
      await waitUntil(
        async () => (await metricValue(third, 'trawl_hints_pending', 'target="node1"')) === 0,
        30_000,
        'hints for node1 replayed',
      );
      const held = await Promise.all(nodes.map(storedEvents));
      assert.equal(
        held.reduce((sum, n) => sum + n, 0),
        2 * total,
        'every event on two nodes once the hints are replayed',
      );
      for (const node of nodes) assert.deepEqual(await countThrough(node), { n: total, partial: false }, `the total through ${node.id}`);
      const created = await postJson(`${third.api}/queries`, { name: 'after', q: 'from main' });
      assert.equal(created.status, 201, created.text);
    });
  });

  describe('forming from the seeds', () => {
    const servers: TestServer[] = [];
    after(async () => {
      await Promise.all(servers.map((server) => server.kill()));
    });

    it('refuses ingest with 503 CLUSTER_FORMING until every seed joined; then events of now spread over every seed', async () => {
      const seeds = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
      const args = (i: number): string[] => ['--node-id', `seed${i + 1}`, '--grpc-listen', seeds[i]!, '--seeds', seeds.join(',')];
      servers.push(await TestServer.start({ args: args(0), set: FAST_MEMBERSHIP }));
      const master = servers[0]!;
      assert.deepEqual((await request(`${master.api}/cluster/status`)).body.data.forming, [seeds[1]]);
      const early = await postJson(`${master.api}/ingest`, eventsNow('early', 5, 1));
      assertError(early, 503, 'CLUSTER_FORMING');
      assert.match(early.body.error.message, new RegExp(seeds[1]!.replace(/\./g, '\\.')), 'the message names the seed awaited');

      servers.push(await TestServer.start({ args: args(1), set: FAST_MEMBERSHIP }));
      await waitUntil(
        async () => (await request(`${master.api}/cluster/status`)).body.data.forming.length === 0,
        10_000,
        'the cluster to form',
      );
      const events = eventsNow('formed', 2000, 40);
      const answer = await postJson(`${master.api}/ingest`, events);
      assert.equal(answer.status, 200, answer.text);
      const expected = eventsByOwner(events, { members: ['seed1', 'seed2'], replicationFactor: 1 });
      assert.ok(expected.get('seed2')! > 0 && expected.get('seed1')! > 0, 'the test data places events on both seeds');
      const held = await Promise.all(
        servers.map(async (server) => (await request(`${server.api}/stats`)).body.data.total_events as number),
      );
      assert.deepEqual(held, [expected.get('seed1'), expected.get('seed2')], 'the current bucket spread over both seeds');
    });
  });

  describe('a hint holder lost for good (replication 1)', () => {
    let nodes: ClusteredServer[] = [];
    const RING: RingLayout = { members: ['node1', 'node2', 'node3'], replicationFactor: 1 };
    before(async () => {
      nodes = await startClusteredServers(3);
    });
    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    it('keeps its target from answering until an operator removes it; then the target answers what it holds', async () => {
      const [first, second, third] = nodes as [ClusteredServer, ClusteredServer, ClusteredServer];
      // Events of now: the epoch the removal decides starts a bucket ahead, so they stay placed by epoch 0.
      const everyoneUp = eventsNow('all-up', 3000, 60);
      await ingest(first, everyoneUp);
      const held = eventsByOwner(everyoneUp, RING);
      assert.ok(held.get('node3')! > 0, 'node3 holds some of the first events');

      await third.server.kill();
      await waitForUp([first, second], ['node1', 'node2']);
      const whileDown = eventsNow('while-down', 3000, 60);
      await ingest(second, whileDown);
      const hinted = eventsByOwner(whileDown, RING);
      assert.ok(hinted.get('node3')! > 0, 'node2 keeps hints for node3');
      await waitUntil(
        async () => (await metricValue(first, 'trawl_hints_pending_holders', 'target="node3"')) === 1,
        10_000,
        "node1 to hear of node2's hints",
      );

      // The holder is lost before it could replay; the target comes back.
      await second.server.kill();
      await third.restart();
      await waitForUp([first, third], ['node1', 'node3']);
      const onlyNode1 = held.get('node1')! + hinted.get('node1')!;
      assert.deepEqual(
        await countThrough(first),
        { n: onlyNode1, partial: true },
        "node3 is not asked while node2's hints for it are pending",
      );

      const removed = await request(`${first.api}/cluster/nodes/node2/remove`, { method: 'POST' });
      assert.equal(removed.status, 200, removed.text);
      // node2's own keys stay missing while it is down; node3 answers for its keys again.
      await waitUntil(async () => (await countThrough(first)).n === onlyNode1 + held.get('node3')!, 10_000, 'node3 to answer again');
      assert.deepEqual(await countThrough(third), { n: onlyNode1 + held.get('node3')!, partial: true });
    });
  });

  describe('taking a node out of future placement', () => {
    let nodes: ClusteredServer[] = [];
    // Each case removes a node or kills the master: a cluster of its own.
    beforeEach(async () => {
      nodes = await startClusteredServers(3);
    });
    afterEach(async () => {
      await stopClusteredServers(nodes, true);
    });
    const removeVia = (node: ClusteredServer, id: string) => request(`${node.api}/cluster/nodes/${id}/remove`, { method: 'POST' });

    it('scripts/trawl cluster remove through a node that is not the master: a new epoch without it, seen by every node', async () => {
      const launcher = path.join(REPO_ROOT, 'scripts', 'trawl');
      const { stdout } = await run(process.execPath, [
        launcher,
        'cluster',
        'remove',
        'node3',
        '--server',
        nodes[1]!.api.replace('/api/v1', ''),
      ]);
      assert.match(stdout, /node node3 removed from future placement: ring epoch 1 from \S+ places data on node1, node2/);
      for (const node of nodes) {
        await waitUntil(
          async () => {
            const status = (await request(`${node.api}/cluster/status`)).body.data;
            const node3 = status.nodes.find((each: { id: string }) => each.id === 'node3');
            return node3.removed === true && JSON.stringify(node3.epochs) === '[0]';
          },
          10_000,
          `${node.id} to see node3 removed`,
        );
      }
      const status = (await request(`${nodes[2]!.api}/cluster/status`)).body.data;
      assert.equal(status.status, 'healthy', 'a removed node that runs leaves the cluster healthy');
    });

    it('refuses what cannot be done: an unknown node 404, a node removed already 400 (removed here first), with the reason', async () => {
      const removed = await removeVia(nodes[0]!, 'node3');
      assert.equal(removed.status, 200, removed.text);
      const unknown = await removeVia(nodes[2]!, 'node9');
      assertError(unknown, 404, 'NOT_FOUND');
      assert.match(unknown.body.error.message, /node9/);
      const again = await removeVia(nodes[0]!, 'node3');
      assertError(again, 400, 'VALIDATION_ERROR');
      assert.match(again.body.error.message, /already removed/);
      const launcher = path.join(REPO_ROOT, 'scripts', 'trawl');
      await assert.rejects(
        run(process.execPath, [launcher, 'cluster', 'remove', 'node9', '--server', nodes[0]!.api.replace('/api/v1', '')]),
        (error: { code: number; stderr: string }) => {
          return error.code === 1 && /404 NOT_FOUND: node "node9" is not a member/.test(error.stderr);
        },
      );
    });

    it('answers 503 MASTER_UNAVAILABLE naming the master while it is down', async () => {
      await nodes[0]!.server.kill();
      await waitUntil(
        async () => (await request(`${nodes[1]!.api}/cluster/status`)).body.data.master.up === false,
        10_000,
        'node2 to see the master down',
      );
      const answer = await request(`${nodes[1]!.api}/cluster/nodes/node2/remove`, { method: 'POST' });
      assertError(answer, 503, 'MASTER_UNAVAILABLE');
      assert.match(answer.body.error.message, /node1/);
    });
  });

  it('a node alone has no cluster to take a node out of: 400', async () => {
    const server = await TestServer.start();
    try {
      const answer = await request(`${server.api}/cluster/nodes/x/remove`, { method: 'POST' });
      assertError(answer, 400, 'VALIDATION_ERROR');
      assert.match(answer.body.error.message, /runs alone/);
    } finally {
      await server.stop();
    }
  });
});
