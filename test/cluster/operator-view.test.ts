/**
 * What an operator sees of a cluster of real processes: /cluster/status says `forming` while the
 * seeds are awaited, shows the replication factor and a join's ring epoch as pending until it
 * starts; `GET /query/jobs` lists every node's jobs newest first, as one node lists its own; a
 * peer that goes down makes /health on the others degraded, naming it, and each node logs one
 * line each time a peer goes down or comes back.
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { freePort, postJson, request, TestServer } from '../helpers/server';
import {
  FAST_MEMBERSHIP,
  joinClusteredServer,
  startClusteredServers,
  stopClusteredServers,
  waitForCaughtUp,
  waitForUp,
  type ClusteredServer,
} from './helpers/clustered-servers';

const status = async (node: { api: string }): Promise<any> => (await request(`${node.api}/cluster/status`)).body.data;
const health = async (node: ClusteredServer): Promise<any> => (await request(`${node.server.url}/health`)).body.data;

/** The up and down lines a node logged about `peer`, in order. */
const peerChanges = (node: ClusteredServer, peer: string): string[] =>
  [...node.server.log.matchAll(new RegExp(`cluster: node ${peer} at \\S+ is (up|down)`, 'g'))].map((match) => match[1]!);

describe('cluster: what operators see', function () {
  this.timeout(120_000);

  describe('a cluster still forming', () => {
    let seed: TestServer | null = null;
    after(async () => {
      await seed?.kill();
    });

    it('/cluster/status says forming while a seed is awaited', async () => {
      const seeds = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
      seed = await TestServer.start({
        args: ['--node-id', 'seed1', '--grpc-listen', seeds[0]!, '--seeds', seeds.join(',')],
        set: { ...FAST_MEMBERSHIP, 'cluster.replication_factor': 2 },
      });
      const forming = await status(seed);
      assert.equal(forming.status, 'forming');
      assert.deepEqual(forming.forming, [seeds[1]]);
      assert.equal(forming.replication_factor, 2);
    });
  });

  describe('three nodes at replication 2', () => {
    // Heartbeats of a second: a join's epoch starts five of them ahead, long enough to be seen pending.
    const SETTINGS = { 'cluster.replication_factor': 2, 'cluster.heartbeat_interval': '1s', 'cluster.failure_timeout': '3s' };
    let nodes: ClusteredServer[] = [];
    let joined: ClusteredServer | null = null;
    before(async () => {
      nodes = await startClusteredServers(3, { set: SETTINGS });
    });
    after(async () => {
      await stopClusteredServers(joined === null ? nodes : [...nodes, joined], true);
    });

    it('/cluster/status shows the replication factor, and the ring epoch of a join as pending until it starts', async () => {
      // Just started, a node is degraded until it heard every member's hint report.
      await waitForCaughtUp(nodes);
      for (const node of nodes) {
        const seen = await status(node);
        assert.equal(seen.status, 'healthy', node.id);
        assert.equal(seen.replication_factor, 2, node.id);
        assert.deepEqual(seen.pending_epochs, [], `${node.id}: no epoch ahead`);
      }
      const joinedMs = Date.now();
      joined = await joinClusteredServer(nodes, 'node4', { set: SETTINGS });
      await waitUntil(async () => (await status(nodes[0]!)).pending_epochs.length > 0, 10_000, 'node1 to see the epoch ahead');
      const seen = await status(nodes[0]!);
      const epoch = Math.max(...seen.nodes.find((node: { id: string }) => node.id === 'node4').epochs);
      assert.equal(seen.pending_epochs.length, 1);
      const [pending] = seen.pending_epochs;
      assert.equal(pending.epoch, epoch, 'the epoch node4 is in');
      assert.deepEqual(pending.members, ['node1', 'node2', 'node3', 'node4']);
      assert.ok(Date.parse(pending.starts_at) > joinedMs, `starts after the join: ${pending.starts_at}`);
    });

    it("GET /query/jobs lists every node's jobs newest first, as one node lists its own", async () => {
      const started: string[] = [];
      for (const node of [nodes[1]!, nodes[0]!, nodes[1]!]) {
        const answer = await postJson(`${node.api}/query`, { q: 'from main | stats count()', wait: 0 });
        assert.equal(answer.status, 202, answer.text);
        const id: string = answer.body.data.job_id;
        started.push(id);
        await waitUntil(
          async () => (await request(`${node.api}/query/jobs/${id}`)).body.data.status !== 'running',
          10_000,
          `job ${id} to end`,
        );
      }
      const newestFirst = [...started].reverse();
      for (const via of [nodes[0]!, nodes[2]!]) {
        const jobs: { job_id: string }[] = (await request(`${via.api}/query/jobs`)).body.data.jobs;
        assert.deepEqual(
          jobs.map((job) => job.job_id).filter((id) => started.includes(id)),
          newestFirst,
          `through ${via.id}`,
        );
      }
    });

    it('a peer down makes /health degraded on the others, naming it; each node logs one line as it goes down and one as it comes back', async () => {
      // Just started, a node is degraded until it heard every member's hint report.
      await waitForCaughtUp(nodes);
      for (const node of nodes) assert.equal((await health(node)).degraded, false, `${node.id} before the kill`);
      // Every member up now (node4 too if the join case ran first) is to be up again after the restart.
      const upBefore: string[] = (await status(nodes[0]!)).nodes
        .filter((node: { state: string }) => node.state === 'up')
        .map((node: { id: string }) => node.id);
      assert.ok(
        ['node1', 'node2', 'node3'].every((id) => upBefore.includes(id)),
        `up before the kill: ${upBefore.join(', ')}`,
      );
      await nodes[2]!.server.kill();
      await waitUntil(async () => (await health(nodes[0]!)).degraded === true, 10_000, 'node1 to say degraded');
      const degraded = await health(nodes[0]!);
      assert.equal(degraded.status, 'healthy', 'node1 itself serves');
      assert.equal(degraded.catching_up, false);
      assert.deepEqual(degraded.down_nodes, ['node3']);
      assert.equal(degraded.reasons.length, 1);
      assert.match(degraded.reasons[0], /node node3 is down/);
      for (const node of nodes.slice(0, 2)) {
        await waitUntil(() => peerChanges(node, 'node3').at(-1) === 'down', 10_000, `${node.id} to log node3 down`);
      }

      await nodes[2]!.restart();
      await waitForUp(nodes, upBefore);
      await waitForCaughtUp(nodes);
      await waitUntil(async () => (await health(nodes[0]!)).degraded === false, 10_000, 'node1 no longer degraded');
      for (const node of nodes.slice(0, 2)) {
        await waitUntil(() => peerChanges(node, 'node3').at(-1) === 'up', 10_000, `${node.id} to log node3 up`);
        const changes = peerChanges(node, 'node3');
        // Each change once: up at the start, then down and up again (no repeats while a state lasts).
        assert.equal(changes[0], 'up', `${node.id}: ${changes.join(', ')}`);
        assert.ok(changes.includes('down'), `${node.id}: ${changes.join(', ')}`);
        assert.ok(
          changes.every((change, i) => i === 0 || change !== changes[i - 1]),
          `${node.id} logs each change once: ${changes.join(', ')}`,
        );
      }
      assert.match(nodes[0]!.server.log, / warn cluster: node node3 at \S+ is down/);
      assert.match(nodes[0]!.server.log, / info cluster: node node3 at \S+ is up/);
    });
  });
});
