/**
 * Operating a cluster of real processes: it forms from its seeds (ingest refused until then, and
 * then the first events spread over every seed), and an operator takes a node out of future
 * placement through any node, with the HTTP endpoint or `scripts/trawl cluster remove`.
 */
import { strict as assert } from 'assert';
import { execFile } from 'child_process';
import path from 'path';
import { promisify } from 'util';
import { assertError, waitUntil } from '../helpers/api';
import { freePort, postJson, REPO_ROOT, request, TestServer } from '../helpers/server';
import { FAST_MEMBERSHIP, startClusteredServers, stopClusteredServers, type ClusteredServer } from './helpers/clustered-servers';
import { eventsByOwner, type TestEvent } from './helpers/placement';

const run = promisify(execFile);

/** Events timed within the last eleven minutes: buckets placed by ring epoch 0. */
function eventsNow(tag: string, count: number, hosts: number): TestEvent[] {
  const time = Math.floor(Date.now() / 1000) - 60;
  return Array.from({ length: count }, (_, i) => ({ event: `${tag} event ${i}`, time: time - (i % 600), host: `${tag}-host-${i % hosts}`, source: 'app' }));
}

describe('cluster operations', function () {
  this.timeout(120_000);

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
      await waitUntil(async () => (await request(`${master.api}/cluster/status`)).body.data.forming.length === 0, 10_000, 'the cluster to form');
      const events = eventsNow('formed', 2000, 40);
      const answer = await postJson(`${master.api}/ingest`, events);
      assert.equal(answer.status, 200, answer.text);
      const expected = eventsByOwner(events, ['seed1', 'seed2'], 1);
      assert.ok(expected.get('seed2')! > 0 && expected.get('seed1')! > 0, 'the test data places events on both seeds');
      const held = await Promise.all(servers.map(async (server) => (await request(`${server.api}/stats`)).body.data.total_events as number));
      assert.deepEqual(held, [expected.get('seed1'), expected.get('seed2')], 'the current bucket spread over both seeds');
    });
  });

  describe('taking a node out of future placement', () => {
    let nodes: ClusteredServer[] = [];
    before(async () => {
      nodes = await startClusteredServers(3);
    });
    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    it('scripts/trawl cluster remove through a node that is not the master: a new epoch without it, seen by every node', async () => {
      const launcher = path.join(REPO_ROOT, 'scripts', 'trawl');
      const { stdout } = await run(process.execPath, [launcher, 'cluster', 'remove', 'node3', '--server', nodes[1]!.api.replace('/api/v1', '')]);
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

    it('refuses what cannot be done: an unknown node 404, a node removed already 400, with the reason', async () => {
      const removeVia = (node: ClusteredServer, id: string) => request(`${node.api}/cluster/nodes/${id}/remove`, { method: 'POST' });
      const unknown = await removeVia(nodes[2]!, 'node9');
      assertError(unknown, 404, 'NOT_FOUND');
      assert.match(unknown.body.error.message, /node9/);
      const again = await removeVia(nodes[0]!, 'node3');
      assertError(again, 400, 'VALIDATION_ERROR');
      assert.match(again.body.error.message, /already removed/);
      const launcher = path.join(REPO_ROOT, 'scripts', 'trawl');
      await assert.rejects(run(process.execPath, [launcher, 'cluster', 'remove', 'node9', '--server', nodes[0]!.api.replace('/api/v1', '')]), (error: { code: number; stderr: string }) => {
        return error.code === 1 && /404 NOT_FOUND: node "node9" is not a member/.test(error.stderr);
      });
    });

    it('answers 503 MASTER_UNAVAILABLE naming the master while it is down', async () => {
      await nodes[0]!.server.kill();
      await waitUntil(async () => (await request(`${nodes[1]!.api}/cluster/status`)).body.data.master.up === false, 10_000, 'node2 to see the master down');
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
