/**
 * Growing a cluster: a node alone with data becomes the master of a new cluster (its events
 * answered exactly through every node, new ones placed over all), a node with data joins a running
 * cluster the same way, and a node that joins takes new writes within seconds at one-hour buckets
 * (its ring epoch splits the current bucket), every event answered once.
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { freePort, postJson, request, TestServer } from '../helpers/server';
import {
  ClusteredServer,
  FAST_MEMBERSHIP,
  joinClusteredServer,
  startClusteredServers,
  stopClusteredServers,
  storedEvents,
  waitForCaughtUp,
} from './helpers/clustered-servers';

interface GrowEvent {
  event: string;
  time: number;
  host: string;
  source: string;
  index?: string;
}

/** `count` events of `index` a few seconds apart over the hours before now (Unix seconds), from 40 hosts: every partition gets some. */
function pastEvents(tag: string, count: number, index: string, spanSeconds: number): GrowEvent[] {
  const now = Math.floor(Date.now() / 1000) - 5;
  return Array.from({ length: count }, (_, i) => ({
    event: `${tag} ${i}`,
    time: now - Math.floor((i * spanSeconds) / count),
    host: `${tag}-${i % 40}`,
    source: 'app',
    index,
  }));
}

async function ingest(api: string, events: GrowEvent[]): Promise<void> {
  const answer = await postJson(`${api}/ingest`, events);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.data.accepted, events.length, answer.text);
}

const DAY_MS = 86_400_000;

/** Counts by index over the last day and the next, through `api`. */
async function countsThrough(
  api: string,
  q = 'from * | stats count() as n by index',
): Promise<{ counts: Record<string, number>; partial: boolean }> {
  const answer = await postJson(`${api}/query`, {
    q,
    from: new Date(Date.now() - DAY_MS).toISOString(),
    to: new Date(Date.now() + DAY_MS).toISOString(),
  });
  assert.equal(answer.status, 200, answer.text);
  const columns = answer.body.data.columns as string[];
  const counts: Record<string, number> = {};
  for (const row of answer.body.data.rows) counts[row[columns.indexOf('index')]] = row[columns.indexOf('n')];
  return { counts, partial: answer.body.meta?.partial === true };
}

/** Starts a node alone, stores `events` in it and stops it: its data dir. */
async function nodeAloneWith(events: GrowEvent[]): Promise<string> {
  const alone = await TestServer.start();
  await ingest(alone.api, events);
  assert.equal(await alone.stop(), 0);
  return alone.dataDir;
}

describe('growing a cluster', function () {
  this.timeout(180_000);

  describe('a node alone with data becomes the master of a new cluster of two, then a third node with data joins', () => {
    const nodes: ClusteredServer[] = [];
    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    // One scenario: each step grows or breaks the cluster the step before it built.
    it('answers what the first node stored alone exactly through both nodes; places new events over both; takes in what a third node stored alone when it joins; says partial, not less, while the first node is down', async () => {
      // The events the first node stored alone: answered exactly through both nodes, placed or listed.
      const expected: Record<string, number> = { main: 0, web: 0 };
      const before = [...pastEvents('alone', 600, 'main', 3 * 3600), ...pastEvents('alone-web', 90, 'web', 3600)];
      const dataDir = await nodeAloneWith(before);
      expected.main += 600;
      expected.web += 90;
      const [grpc1, grpc2, http1, http2] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
      const seeds = [`127.0.0.1:${grpc1}`, `127.0.0.1:${grpc2}`];
      const start = (id: string, grpc: string, port: number, dir?: string): Promise<ClusteredServer> => {
        const args = ['--node-id', id, '--grpc-listen', grpc, '--seeds', seeds.join(',')];
        return TestServer.start({ port, dataDir: dir, args, set: FAST_MEMBERSHIP }).then(
          (server) => new ClusteredServer(id, grpc, port, server.dataDir, args, { ...FAST_MEMBERSHIP }, server),
        );
      };
      nodes.push(...(await Promise.all([start('a', seeds[0]!, http1, dataDir), start('b', seeds[1]!, http2)])));
      assert.match(nodes[0]!.server.log, /keeps the 690 events it stored alone \(2 index\(es\)/);
      for (const node of nodes) {
        await waitUntil(
          async () => (await request(`${node.api}/cluster/status`)).body.data.node_count === 2,
          20_000,
          `${node.id} to see both`,
        );
        assert.deepEqual((await countsThrough(node.api)).counts, expected, `by index through ${node.id}`);
        // A named index over a bounded range is enumerated from placement elsewhere: the node's own keys are asked too.
        const named = await countsThrough(node.api, 'from main | stats count() as n by index');
        assert.deepEqual(named.counts, { main: expected.main }, `main through ${node.id}`);
      }

      // New events placed over both nodes, and all answered exactly.
      const heldBefore = await storedEvents(nodes[1]!);
      assert.equal(heldBefore, 0, 'b held nothing');
      await ingest(nodes[1]!.api, pastEvents('new', 400, 'main', 600));
      expected.main += 400;
      assert.ok((await storedEvents(nodes[1]!)) > 0, 'b holds some of the new events');
      assert.ok((await storedEvents(nodes[0]!)) > 690, 'a holds some of the new events');
      for (const node of nodes) assert.deepEqual((await countsThrough(node.api)).counts, expected, `through ${node.id}`);

      // A third node joins the running cluster with what it stored alone.
      const thirdDataDir = await nodeAloneWith(pastEvents('third', 250, 'web', 5 * 3600));
      expected.web += 250;
      const [grpc, http] = await Promise.all([freePort(), freePort()]);
      const args = ['--node-id', 'c', '--grpc-listen', `127.0.0.1:${grpc}`, '--seeds', nodes.map((node) => node.grpc).join(',')];
      const server = await TestServer.start({ port: http, dataDir: thirdDataDir, args, set: FAST_MEMBERSHIP });
      nodes.push(new ClusteredServer('c', `127.0.0.1:${grpc}`, http, thirdDataDir, args, { ...FAST_MEMBERSHIP }, server));
      for (const node of nodes) {
        await waitUntil(
          async () => (await request(`${node.api}/cluster/status`)).body.data.node_count === 3,
          20_000,
          `${node.id} to see three`,
        );
        await waitUntil(
          async () => JSON.stringify((await countsThrough(node.api)).counts) === JSON.stringify(expected),
          10_000,
          `the counts through ${node.id}`,
        );
      }
      const status = (await request(`${nodes[2]!.api}/cluster/status`)).body.data;
      const c = status.nodes.find((node: { id: string }) => node.id === 'c');
      assert.deepEqual(c.stored_alone?.indexes, ['web'], 'status shows what c stored alone');

      // Partial, not less, while the node that stored events alone is down.
      await nodes[0]!.server.kill();
      await waitUntil(
        async () => (await request(`${nodes[1]!.server.url}/health`)).body.data.down_nodes?.includes('a') === true,
        10_000,
        'b to see a down',
      );
      const answer = await countsThrough(nodes[1]!.api);
      assert.equal(answer.partial, true, JSON.stringify(answer));
    });
  });

  describe('a node that joins under load at one-hour buckets', () => {
    let nodes: ClusteredServer[] = [];
    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    it('holds new events within seconds, and every event is answered once through every node', async () => {
      nodes = await startClusteredServers(2);
      let sent = 0;
      let writing = true;
      const writer = (async () => {
        for (let round = 0; writing; round++) {
          // Timed now: the bucket the new ring epoch splits.
          const now = Math.floor(Date.now() / 1000);
          const batch = Array.from({ length: 50 }, (_, i) => ({ event: `load ${round} ${i}`, time: now, host: `h${i}`, source: 'app' }));
          await ingest(nodes[round % nodes.length]!.api, batch);
          sent += batch.length;
        }
      })();
      const joinedAt = Date.now();
      nodes.push(await joinClusteredServer(nodes, 'node3'));
      await waitUntil(async () => (await storedEvents(nodes[2]!)) > 0, 30_000, 'node3 to hold new events');
      const seconds = (Date.now() - joinedAt) / 1000;
      assert.ok(seconds < 30, `node3 held events ${seconds} s after it was started`);
      writing = false;
      await writer;
      // Just joined, node3 is asked for its keys once it heard every member's hint report.
      await waitForCaughtUp(nodes);
      for (const node of nodes) {
        const { counts, partial } = await countsThrough(node.api);
        assert.equal(partial, false, node.id);
        assert.equal(counts.main, sent, `every event once through ${node.id}`);
      }
    });
  });

  describe('a node that joins while events timed in a later bucket are stored', () => {
    let nodes: ClusteredServer[] = [];
    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    it('starts its ring epoch at the newest such bucket, and those events stay answered exactly', async () => {
      const set = { 'cluster.bucket_span': '1m' };
      nodes = await startClusteredServers(2, { set });
      // A shipper's clock five minutes ahead.
      const ahead = Math.floor(Date.now() / 1000) + 300;
      const events = Array.from({ length: 300 }, (_, i) => ({
        event: `ahead ${i}`,
        time: ahead + (i % 40),
        host: `ahead-${i}`,
        source: 'app',
      }));
      await ingest(nodes[0]!.api, events);
      const newestMs = (ahead + 39) * 1000;
      nodes.push(await joinClusteredServer(nodes, 'node3', { set }));
      const status = (await request(`${nodes[0]!.api}/cluster/status`)).body.data;
      assert.equal(status.pending_epochs.length, 1, JSON.stringify(status.pending_epochs));
      assert.equal(
        Date.parse(status.pending_epochs[0].starts_at),
        Math.floor(newestMs / 60_000) * 60_000 + 1000,
        "a second into the newest event's bucket",
      );
      await waitForCaughtUp(nodes);
      for (const node of nodes) {
        const { counts, partial } = await countsThrough(node.api);
        assert.equal(partial, false, node.id);
        assert.equal(counts.main, events.length, `every event once through ${node.id}`);
      }
    });
  });
});
