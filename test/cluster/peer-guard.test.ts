/**
 * A process that is no member calls a cluster of three real nodes with the project's own proto,
 * and nothing it says rewrites the cluster: a pushed state is taken only as the master's next
 * version (a jump, a state that drops members or saved queries, or one the master does not hold is
 * refused, logged once per sender and reason, and counted); a join cannot take a member's id or
 * addresses, nor re-point a running member; heartbeat and pull inputs are bounded. A node that was
 * down while saved queries changed pulls what it missed from the master, and a member restarted at
 * a new HTTP address still takes it. A connection that never finishes the HTTP/2 preface is closed
 * within a few seconds.
 */
import { strict as assert } from 'assert';
import net from 'net';
import * as grpc from '@grpc/grpc-js';
import type * as wire from '../../node/cluster/grpc/messages';
import { PeerClients } from '../../node/cluster/grpc/peers';
import { MEMBERSHIP } from '../../node/cluster/grpc/proto';
import { DEFAULT_PREFACE_TIMEOUT_MS } from '../../node/cluster/grpc/server';
import { protocolVersion } from '../../node/cluster/grpc/wire';
import { waitUntil } from '../helpers/api';
import { freePort, postJson, request, TestServer } from '../helpers/server';
import {
  FAST_MEMBERSHIP,
  startClusteredServers,
  stopClusteredServers,
  storedEvents,
  type ClusteredServer,
} from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { taggedEvents } from './helpers/test-events';
import { refusal as refused } from './helpers/refusal';

const CALL_MS = 10_000;

interface Snapshot {
  stateVersion: number;
  nodeCount: number;
  addresses: string[];
  savedQueries: string[];
}

/** What a node says of the cluster and its saved queries. */
async function snapshot(node: ClusteredServer): Promise<Snapshot> {
  const status = (await request(`${node.api}/cluster/status`)).body.data;
  const saved = (await request(`${node.api}/queries`)).body.data.queries as { name: string }[];
  return {
    stateVersion: status.state_version as number,
    nodeCount: status.node_count as number,
    addresses: (status.nodes as { id: string; address: string; grpc_address: string }[]).map(
      (each) => `${each.id} ${each.address} ${each.grpc_address}`,
    ),
    savedQueries: saved.map((each) => each.name).sort(),
  };
}

/** `state` without the members `ids` (out of its ring epochs too, so that it parses). */
function without(state: wire.ClusterState, ids: string[]): wire.ClusterState {
  return {
    ...state,
    members: state.members.filter((member) => !ids.includes(member.id)),
    epochs: state.epochs.map((epoch) => ({ ...epoch, members: epoch.members.filter((id) => !ids.includes(id)) })),
  };
}

async function countThrough(node: ClusteredServer): Promise<number> {
  const from = new Date(Date.now() - 86_400_000).toISOString();
  const to = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const answer = await postJson(`${node.api}/query`, { q: 'from main | stats count() as n', from, to });
  assert.equal(answer.status, 200, answer.text);
  assert.notEqual(answer.body.meta.partial, true, answer.text);
  return answer.body.data.rows[0][0] as number;
}

/** Resolves with how long the server took to close a socket that sends `bytes` and then waits. */
function closedAfter(address: string, bytes: Buffer): Promise<number> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ host, port }, () => {
      if (bytes.length > 0) socket.write(bytes);
    });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Date.now() - started));
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`a connection that sent ${bytes.length} bytes was still open after 30 s`));
    }, 30_000).unref();
  });
}

describe('cluster peers checked like clients: hostile calls from a process that is no member', function () {
  this.timeout(120_000);
  let nodes: ClusteredServer[] = [];
  const peers = new PeerClients();
  let original: Snapshot;
  let events = 0;
  let state: wire.ClusterState;
  let payload: wire.Payload;

  const everyNode = async (check: (node: ClusteredServer) => Promise<void>): Promise<void> => {
    for (const node of nodes) await check(node);
  };
  const unchanged = async (): Promise<void> => {
    await everyNode(async (node) => {
      assert.deepEqual(await snapshot(node), original, `${node.id} keeps the cluster it had`);
      assert.equal(await countThrough(node), events, `the count through ${node.id}`);
    });
  };
  const push = (node: ClusteredServer, from: string, pushed: wire.ClusterState, pushedPayload: wire.Payload | null = null) =>
    peers.call(
      node.grpc,
      MEMBERSHIP.PushState,
      { protocol_version: protocolVersion(), from, state: pushed, payload: pushedPayload },
      CALL_MS,
    );

  before(async () => {
    nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 2 } });
    const batch = taggedEvents('guard', 3000, 40);
    const answer = await postJson(`${nodes[0]!.api}/ingest`, batch);
    assert.equal(answer.status, 200, answer.text);
    events = batch.length;
    for (const name of ['errors by host', 'slow requests']) {
      const created = await postJson(`${nodes[1]!.api}/queries`, { name, q: 'from main | stats count() by host' });
      assert.equal(created.status, 201, created.text);
    }
    await waitUntil(
      async () => (await Promise.all(nodes.map(snapshot))).every((seen) => seen.savedQueries.length === 2),
      10_000,
      'the saved queries on every node',
    );
    original = await snapshot(nodes[0]!);
    const pulled = await peers.call(
      nodes[0]!.grpc,
      MEMBERSHIP.PullState,
      { protocol_version: protocolVersion(), from: 'intruder' },
      CALL_MS,
    );
    state = pulled.state!;
    payload = pulled.payload!;
  });

  after(async () => {
    peers.close();
    await stopClusteredServers(nodes, true);
  });

  it('a pushed state of version 1e12 with one member is refused by every node, named as the master or not', async () => {
    const lonely: wire.ClusterState = { ...without(state, ['node2', 'node3']), version: 1e12 };
    for (const node of nodes.slice(1)) {
      const jump = await refused(push(node, 'node1', lonely));
      assert.equal(jump.code, grpc.status.FAILED_PRECONDITION);
      assert.equal(jump.reason, 'state-gap', jump.details);
      const stranger = await refused(push(node, 'intruder', lonely));
      assert.equal(stranger.reason, 'not-from-master', stranger.details);
    }
    const toMaster = await refused(push(nodes[0]!, 'node1', lonely));
    assert.equal(toMaster.reason, 'not-from-master', 'the master takes no pushes');
    await unchanged();
  });

  it('a next version that drops members, saved queries, or that the master does not hold is refused', async () => {
    const node = nodes[2]!;
    const next = state.version + 1;
    const dropped = await refused(push(node, 'node1', { ...without(state, ['node2']), version: next }));
    assert.equal(dropped.reason, 'state-succession');
    assert.match(dropped.details, /drops member node2/);

    const emptied = Buffer.from(JSON.stringify({ version: payload.version + 1, collections: {} }));
    const forgotten = await refused(push(node, 'node1', state, { version: payload.version + 1, data: emptied }));
    assert.equal(forgotten.reason, 'payload-succession');
    assert.match(forgotten.details, /changes 2 records/);

    // A step that could follow, but that the master never decided.
    const stranger = { id: 'node9', http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' };
    const forged = await refused(push(node, 'node1', { ...state, version: next, members: [...state.members, stranger] }));
    assert.equal(forged.reason, 'not-from-master', forged.details);
    await unchanged();
  });

  it('refusals are logged once per sender and reason, and counted', async () => {
    const node = nodes[1]!;
    const lonely: wire.ClusterState = { ...without(state, ['node2', 'node3']), version: 1e12 };
    const counted = await metricValue(node, 'trawl_grpc_refusals_total', 'method="PushState",reason="not-from-master"');
    for (let i = 0; i < 5; i++) await refused(push(node, 'spammer', lonely));
    assert.equal(await metricValue(node, 'trawl_grpc_refusals_total', 'method="PushState",reason="not-from-master"'), counted + 5);
    const lines = node.server.log.split('\n').filter((line) => line.includes('refused PushState from "spammer" (not-from-master)'));
    assert.equal(lines.length, 1, node.server.log);
  });

  it('a join cannot re-point a running member, take another member address, or bring a 1 MB node id', async () => {
    const master = nodes[0]!;
    const join = (node: wire.Member) => peers.call(master.grpc, MEMBERSHIP.Join, { protocol_version: protocolVersion(), node }, CALL_MS);
    const evil = `127.0.0.1:${await freePort()}`;

    const repoint = await refused(join({ id: 'node2', http: evil, grpc: nodes[1]!.grpc, role: 'all' }));
    assert.equal(repoint.code, grpc.status.UNAVAILABLE);
    assert.equal(repoint.reason, 'member-up', repoint.details);

    const taken = await refused(join({ id: 'node9', http: `127.0.0.1:${nodes[2]!.httpPort}`, grpc: evil, role: 'all' }));
    assert.equal(taken.code, grpc.status.ALREADY_EXISTS);
    assert.equal(taken.reason, 'address-taken');
    const takenGrpc = await refused(join({ id: 'node9', http: evil, grpc: nodes[2]!.grpc, role: 'all' }));
    assert.equal(takenGrpc.reason, 'address-taken');

    const huge = await refused(join({ id: 'x'.repeat(1 << 20), http: evil, grpc: evil, role: 'all' }));
    assert.equal(huge.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(huge.reason, 'invalid-member');
    assert.ok(huge.details.length < 300, 'the refusal does not echo the id');
    const badId = await refused(join({ id: '../../etc', http: evil, grpc: evil, role: 'all' }));
    assert.equal(badId.reason, 'invalid-member');
    const badRole = await refused(join({ id: 'node9', http: evil, grpc: evil, role: 'root' }));
    assert.equal(badRole.reason, 'invalid-member');
    await unchanged();
  });

  it('heartbeat and pull inputs are bounded and checked', async () => {
    const node = nodes[1]!;
    const heartbeat = (request: Partial<wire.HeartbeatRequest>) =>
      peers.call(
        node.grpc,
        MEMBERSHIP.Heartbeat,
        {
          protocol_version: protocolVersion(),
          from: { id: 'node9', http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' },
          state_version: 0,
          payload_version: 0,
          hints_for: [],
          ...request,
        },
        CALL_MS,
      );
    const impostor = await refused(heartbeat({ from: { id: 'node3', http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' } }));
    assert.equal(impostor.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(impostor.reason, 'node-id-taken');
    const manyHints = await refused(heartbeat({ hints_for: Array.from({ length: 5000 }, (_, i) => `n${i}`) }));
    assert.equal(manyHints.reason, 'invalid-heartbeat');
    const hugeVersion = await refused(heartbeat({ state_version: 2 ** 60 }));
    assert.equal(hugeVersion.code, grpc.status.INVALID_ARGUMENT);
    const noSender = await refused(heartbeat({ from: null }));
    assert.equal(noSender.reason, 'invalid-member');
    const pull = await refused(
      peers.call(node.grpc, MEMBERSHIP.PullState, { protocol_version: protocolVersion(), from: 'y'.repeat(1 << 20) }, CALL_MS),
    );
    assert.equal(pull.code, grpc.status.INVALID_ARGUMENT);
    // A stranger claiming a newer state makes no node take anything from it.
    assert.equal((await heartbeat({ state_version: 1e12, payload_version: 1e12 })).node_id, 'node2');
    await unchanged();
  });

  it('a node down while saved queries changed takes what it missed from the master on its return', async () => {
    const node = nodes[2]!;
    await node.server.kill();
    await waitUntil(
      async () => (await request(`${nodes[0]!.api}/cluster/status`)).body.data.status === 'degraded',
      10_000,
      'node3 seen down',
    );
    for (const name of ['third', 'fourth', 'fifth']) {
      const created = await postJson(`${nodes[0]!.api}/queries`, { name, q: 'from main' });
      assert.equal(created.status, 201, created.text);
    }
    await node.restart();
    const wanted = [...original.savedQueries, 'fifth', 'fourth', 'third'].sort();
    await waitUntil(async () => (await snapshot(node)).savedQueries.join() === wanted.join(), 15_000, 'node3 to have every saved query');
    assert.equal((await storedEvents(node)) > 0, true);
  });

  it('a member restarted at once at a new HTTP address takes it once the master saw it down', async () => {
    const node = nodes[2]!;
    await node.server.kill();
    const httpPort = await freePort();
    const args = ['--node-id', node.id, '--grpc-listen', node.grpc, '--seeds', nodes.map((each) => each.grpc).join(',')];
    node.server = await TestServer.start({
      port: httpPort,
      dataDir: node.dataDir,
      args,
      set: { ...FAST_MEMBERSHIP, 'cluster.replication_factor': 2 },
    });
    await waitUntil(
      async () => {
        const status = (await request(`${nodes[0]!.api}/cluster/status`)).body.data;
        const seen = (status.nodes as { id: string; address: string; state: string }[]).find((each) => each.id === node.id);
        return status.status === 'healthy' && seen?.address === `127.0.0.1:${httpPort}`;
      },
      20_000,
      'node3 up at its new HTTP address',
    );
  });

  it('connections that send half the HTTP/2 preface, or nothing, are closed within the bound; the cluster works on', async () => {
    const half = Buffer.from('PRI * HTTP/2.0\r\n', 'latin1');
    const [afterHalf, afterNothing] = await Promise.all([closedAfter(nodes[1]!.grpc, half), closedAfter(nodes[1]!.grpc, Buffer.alloc(0))]);
    for (const ms of [afterHalf, afterNothing]) {
      assert.ok(ms >= DEFAULT_PREFACE_TIMEOUT_MS - 100 && ms < DEFAULT_PREFACE_TIMEOUT_MS + 3000, `closed after ${ms} ms`);
    }
    assert.ok(
      (await closedAfter(nodes[1]!.grpc, Buffer.from('GET / HTTP/1.1\r\n\r\n'))) < 2000,
      'a connection that is no HTTP/2 is closed at once',
    );
    await waitUntil(
      async () => (await request(`${nodes[1]!.api}/cluster/status`)).body.data.status === 'healthy',
      15_000,
      'the cluster healthy',
    );
    assert.equal(await countThrough(nodes[1]!), events);
  });
});
