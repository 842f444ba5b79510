/**
 * `cluster.secret`: three real nodes sharing it (given as TRAWL_CLUSTER_SECRET) form, ingest and
 * query as usual, and GET /config hides it. A stranger process with the project's proto calls every
 * method of every service in it: without proof, with a wrong secret's proof and with a stale one,
 * each call is refused UNAUTHENTICATED before anything runs (no member joins, a write stores
 * nothing, though the same write with the right proof is stored), each refusal is counted and the
 * node's log names it. A node started without the secret warns that its port is open, and its join
 * is refused with a message that says to set cluster.secret.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import { signProof, PROOF_KEY, PROOF_WINDOW_MS } from '../../node/cluster/grpc/call-proof';
import { PeerClients } from '../../node/cluster/grpc/peers';
import { proofSender } from '../../node/cluster/grpc/proof-sender';
import { SHARD_WRITE } from '../../node/cluster/grpc/proto';
import { REFUSAL_KEY } from '../../node/cluster/grpc/server';
import { protocolVersion } from '../../node/cluster/grpc/wire';
import { CURRENT_LAYOUT, type RingEpoch } from '../../node/cluster/epochs';
import { ownersOf } from '../../node/cluster/ring';
import { encodeJsonChunkRecord } from '../../storage/buffer/chunk-record-json';
import { chunkEvents } from '../../storage/buffer/event-chunk';
import type { LogEvent } from '../../storage/core/event';
import type { Placement } from '../../storage/core/partition';
import { waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import {
  joinClusteredServer,
  startClusteredServers,
  stopClusteredServers,
  storedEvents,
  type ClusteredServer,
} from './helpers/clustered-servers';
import { metricSum } from './helpers/metrics';
import { BUCKET_SPAN_MICROS, PARTITIONS } from './helpers/placement';
import { taggedEvents } from './helpers/test-events';
import { protoMethods, type ProtoMethod } from './helpers/proto-methods';

const SECRET = 'shared-by-the-three-nodes-0123456789';
const CALL_MS = 10_000;
const PLACEMENT: Placement = { bucketSpanMicros: BUCKET_SPAN_MICROS, partitions: PARTITIONS };
/** The ring the three test nodes form at their start (replication factor 1). */
const EPOCHS: RingEpoch[] = [{ epoch: 0, fromMicros: 0, members: ['node1', 'node2', 'node3'], layout: CURRENT_LAYOUT }];

/** Events now whose keys node1 alone owns, as the chunk record a member's Write carries. */
function recordOwnedByNode1(tag: string): { record: Buffer; events: number } {
  const now = Date.now() * 1000;
  const events: LogEvent[] = Array.from({ length: 64 }, (_, i) => ({
    time: now - i * 1000,
    raw: `${tag} ${i}`,
    index: 'main',
    fields: { host: `h${i}`, source: tag },
  }));
  const chunks = chunkEvents(events, PLACEMENT).filter((chunk) => ownersOf(chunk.key, EPOCHS, 1).includes('node1'));
  assert.ok(chunks.length > 0, 'some key is owned by node1');
  return { record: encodeJsonChunkRecord(chunks, PLACEMENT), events: chunks.reduce((sum, chunk) => sum + chunk.count, 0) };
}

/** A request each method would act on if it were served: a join of a new node, a write of node1's events; others empty. */
function requestFor(method: ProtoMethod, write: Buffer): unknown {
  const base = { protocol_version: protocolVersion() };
  if (method.name === 'Join') return { ...base, node: { id: 'intruder', http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' } };
  if (method.name === 'Write' || method.name === 'ReplayHint')
    return { ...base, origin: 'node2', hint_log: 'forged', seq: 1, record: write, share_id: '', share_floor_ms: 0 };
  return base;
}

/** Calls `method` at `address` with `metadata`; resolves with the status it ends with. */
function callStatus(
  client: grpc.Client,
  method: ProtoMethod,
  request: unknown,
  metadata: grpc.Metadata,
): Promise<grpc.ServiceError | null> {
  const { definition } = method;
  const options = { deadline: Date.now() + CALL_MS };
  return new Promise((resolve) => {
    if (definition.responseStream) {
      const stream = client.makeServerStreamRequest(
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        request,
        metadata,
        options,
      );
      stream.on('data', () => undefined);
      stream.on('error', (error: grpc.ServiceError) => resolve(error));
      stream.on('end', () => resolve(null));
    } else {
      client.makeUnaryRequest(
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        request,
        metadata,
        options,
        (error) => resolve(error),
      );
    }
  });
}

function withProof(proof: string | null): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (proof !== null) metadata.set(PROOF_KEY, proof);
  return metadata;
}

async function memberIds(node: ClusteredServer): Promise<string[]> {
  const status = (await request(`${node.api}/cluster/status`)).body.data;
  return (status.nodes as { id: string }[]).map((each) => each.id).sort();
}

describe('cluster.secret: the gRPC port closed to strangers', function () {
  this.timeout(180_000);
  let nodes: ClusteredServer[] = [];

  before(async () => {
    nodes = await startClusteredServers(3, { env: { TRAWL_CLUSTER_SECRET: SECRET } });
  });

  after(async () => {
    await stopClusteredServers(nodes);
  });

  it('forms, ingests and queries with the secret; no node warns that it is unset; GET /config hides it and PATCH cannot change it', async () => {
    const events = taggedEvents('secret', 300, 30);
    const ingested = await postJson(`${nodes[1]!.api}/ingest`, events);
    assert.equal(ingested.status, 200, ingested.text);
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 2 * 86_400_000).toISOString();
    await waitUntil(
      async () => {
        const answer = await postJson(`${nodes[2]!.api}/query`, { q: 'from main | stats count() as n', from, to });
        return answer.status === 200 && answer.body.meta.partial !== true && answer.body.data.rows[0]?.[0] === events.length;
      },
      20_000,
      'every ingested event to be counted through node3',
    );
    for (const node of nodes) assert.doesNotMatch(node.server.log, /cluster\.secret is not set/);
    const config = await request(`${nodes[0]!.api}/config`);
    assert.equal(config.body.data.cluster.secret, '(hidden)');
    assert.ok(!config.text.includes(SECRET));
    const patched = await request(`${nodes[0]!.api}/config`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cluster: { secret: 'another-secret-0123456789' } }),
    });
    assert.equal(patched.status, 400, patched.text);
    assert.ok(!patched.text.includes('another-secret-0123456789'));
  });

  it('refuses a stranger UNAUTHENTICATED on every method of every service, without proof, with a wrong secret or a stale proof; nothing it sent took effect', async () => {
    const methods = protoMethods();
    const names = methods.map((method) => `${method.service}.${method.name}`);
    assert.ok(methods.length > 0, 'the proto has methods');
    for (const expected of [
      'Membership.Join',
      'Membership.Heartbeat',
      'Membership.PushState',
      'ShardWrite.Write',
      'ShardWrite.ReplayHint',
      'ShardQuery.Query',
      'ShardQuery.Keys',
      'Metadata.Apply',
      'Tail.Subscribe',
    ]) {
      assert.ok(names.includes(expected), `${expected} is among ${names.join(', ')}`);
    }
    const target = nodes[0]!;
    const { record, events } = recordOwnedByNode1('stranger');
    const storedBefore = await storedEvents(target);
    const countedBefore = await metricSum(target, 'trawl_grpc_unauthenticated_total');
    // A wrong secret's proof and a stale one are made for the very method they are sent with.
    const proofs: [string, (path: string) => string | null][] = [
      ['no-proof', () => null],
      ['wrong-proof', (path) => signProof('not-the-cluster-secret-0123', 'node2', path, Date.now())],
      ['stale-proof', (path) => signProof(SECRET, 'node2', path, Date.now() - PROOF_WINDOW_MS - 60_000)],
    ];
    const client = new grpc.Client(target.grpc, grpc.credentials.createInsecure());
    try {
      for (const [reason, proofFor] of proofs) {
        for (const method of methods) {
          const proof = proofFor(method.definition.path);
          const error = await callStatus(client, method, requestFor(method, record), withProof(proof));
          const label = `${method.service}.${method.name} with ${reason}`;
          assert.ok(error !== null, `${label} was answered`);
          assert.equal(error.code, grpc.status.UNAUTHENTICATED, `${label}: ${error.code} ${error.details}`);
          assert.equal(error.metadata.get(REFUSAL_KEY)[0], reason, label);
        }
      }
    } finally {
      client.close();
    }
    assert.deepEqual(await memberIds(target), ['node1', 'node2', 'node3'], 'no intruder joined');
    assert.equal(await storedEvents(target), storedBefore, 'a refused write stored nothing');
    assert.equal(await metricSum(target, 'trawl_grpc_unauthenticated_total'), countedBefore + 3 * methods.length);
    assert.match(target.server.log, /cluster: refused Membership\.Join from 127\.0\.0\.1:\d+ \(no-proof\)/);

    // The same write with the cluster's proof is stored: the refusals above were the proof's alone.
    const member = new PeerClients(1000, [proofSender(SECRET, 'node2')]);
    try {
      const written = await member.call(
        target.grpc,
        SHARD_WRITE.Write,
        { protocol_version: protocolVersion(), origin: 'node2', record, share_id: '', share_floor_ms: 0 },
        CALL_MS,
      );
      assert.equal(written.events, events);
    } finally {
      member.close();
    }
    assert.equal(await storedEvents(target), storedBefore + events);
  });

  it('a node without the secret warns that its port is open, and its join is refused with a message to set cluster.secret', async () => {
    const started = joinClusteredServer(nodes, 'node4');
    await assert.rejects(started, (error: Error) => {
      assert.match(error.message, /server exited \(1\)/);
      assert.match(error.message, /cluster\.secret is not set: anyone who can reach 127\.0\.0\.1:\d+ can join the cluster/);
      assert.match(
        error.message,
        /node node4 cannot join the cluster: the master at .* refused: .*set cluster\.secret on the calling node/,
      );
      return true;
    });
    assert.deepEqual(await memberIds(nodes[0]!), ['node1', 'node2', 'node3']);
    assert.match(nodes[0]!.server.log, /cluster: refused Membership\.Join from 127\.0\.0\.1:\d+ \(no-proof\)/);
  });
});
