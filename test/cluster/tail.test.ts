/**
 * Live tail in a cluster of three (replication 2): a session on node 1 receives the matching
 * events ingested through every node, node 3 included, each exactly once (an event is published
 * only by the node that acknowledged it, whichever nodes store its copies), and its catchup covers
 * the events stored before it started. A member that restarts is subscribed again, and what it
 * acknowledges then arrives. Closing the session ends the other members' streams. A subscription
 * that no session could have sent (a query that does not parse, a stage that needs all input, no
 * protocol version) is refused with the reason.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import { PeerCallError, PeerClients } from '../../node/cluster/grpc/peers';
import type * as wire from '../../node/cluster/grpc/messages';
import { TAIL } from '../../node/cluster/grpc/proto';
import { protocolVersion } from '../../node/cluster/grpc/wire';
import { waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import { SseRecorder } from '../helpers/sse';
import { startClusteredServers, stopClusteredServers, type ClusteredServer } from './helpers/clustered-servers';

const KINDS = ['result', 'catchup_done', 'heartbeat', 'error'];

describe('cluster: live tail', function () {
  this.timeout(180_000);
  let nodes: ClusteredServer[];
  let recorder: SseRecorder | null = null;

  before(async () => {
    nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 2, 'tail.heartbeat_interval': '500ms' } });
  });

  after(async () => {
    recorder?.close();
    await stopClusteredServers(nodes ?? []);
  });

  const tailStatus = async (node: ClusteredServer) => (await request(`${node.api}/status`)).body.data.tail;

  it('a session on node 1 receives the events ingested through nodes 1, 2 and 3, each once, after a catchup over all of them', async () => {
    const now = Date.now() / 1000;
    // Stored before the session: its catchup finds them on whichever nodes own them.
    const earlier = Array.from({ length: 12 }, (_, i) => ({
      event: `earlier ${i}`,
      time: now - 60 + i,
      index: 'web',
      fields: { level: 'error' },
    }));
    for (const [i, node] of nodes.entries()) {
      const part = earlier.filter((_, k) => k % 3 === i);
      assert.equal((await postJson(`${node.api}/ingest`, part)).status, 200);
    }
    const url = `${nodes[0]!.api}/tail?${new URLSearchParams({ q: 'from web | where level = "error"', count: '100', from: '-10m' })}`;
    recorder = new SseRecorder(url, KINDS);
    await recorder.until((got) => got.some((event) => event.event === 'catchup_done'), 'catchup_done', 30_000);
    assert.deepEqual(
      recorder.of('result').map((event) => event.data._raw),
      earlier.map((event) => event.event),
      'the catchup, oldest first',
    );
    // The other members listen to node 1's session.
    await waitUntil(
      async () => (await Promise.all(nodes.slice(1).map(tailStatus))).every((s) => s.subscriber_count >= 1),
      10_000,
      'subscriptions',
    );

    const live: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (const [i, node] of nodes.entries()) {
        const events = Array.from({ length: 20 }, (_, k) => ({
          event: `live ${round} via ${node.id} ${k}`,
          time: Date.now() / 1000,
          index: k % 4 === 3 ? 'db' : 'web',
          fields: { level: k % 2 === 0 ? 'error' : 'info', via: i },
        }));
        for (const event of events) if (event.index === 'web' && event.fields.level === 'error') live.push(event.event);
        const answer = await postJson(`${node.api}/ingest`, events);
        assert.deepEqual(answer.body, { data: { accepted: events.length, failed: 0 } });
      }
    }
    assert.ok(live.some((raw) => raw.includes(nodes[2]!.id)));
    const catchupCount = earlier.length;
    await recorder.until(
      (got) => got.filter((event) => event.event === 'result').length >= catchupCount + live.length,
      'the live results',
      30_000,
    );
    // A last event through node 3 marks the end: a duplicate would have arrived before it.
    assert.equal((await postJson(`${nodes[2]!.api}/ingest`, [{ event: 'marker', index: 'web', fields: { level: 'error' } }])).status, 200);
    await recorder.until((got) => got.some((event) => event.data?._raw === 'marker'), 'the marker', 30_000);
    const liveRaws = recorder
      .of('result')
      .slice(catchupCount)
      .map((event) => event.data._raw as string);
    assert.deepEqual([...liveRaws].sort(), [...live, 'marker'].sort(), 'each live event once, none of the others');
    assert.equal(recorder.of('error').length, 0, JSON.stringify(recorder.of('error')));

    // Node 3 goes away and comes back: the session says so once, subscribes again, and hears it.
    await nodes[2]!.server.kill();
    await recorder.until((got) => got.some((event) => event.event === 'error'), 'the error event for the member that left', 30_000);
    const gone = recorder.of('error')[0]!.data;
    assert.equal(gone.code, 'SHARD_UNAVAILABLE');
    assert.ok(gone.message.includes(nodes[2]!.id), gone.message);
    await nodes[2]!.restart();
    await waitUntil(async () => (await tailStatus(nodes[2]!)).subscriber_count >= 1, 30_000, 'node 3 subscribed again');
    const back = { event: 'back through node 3', index: 'web', fields: { level: 'error' } };
    assert.equal((await postJson(`${nodes[2]!.api}/ingest`, [back])).status, 200);
    await recorder.until((got) => got.some((event) => event.data?._raw === back.event), 'the event through the restarted node', 30_000);

    recorder.close();
    recorder = null;
    await waitUntil(async () => (await tailStatus(nodes[0]!)).active_sessions === 0, 10_000, 'the session to close');
    await waitUntil(
      async () => (await Promise.all(nodes.map(tailStatus))).every((s) => s.subscriber_count === 0),
      10_000,
      'the members to end their streams',
    );
  });

  it('refuses a subscription no session could have sent, with the reason', async () => {
    const peers = new PeerClients();
    const subscribe = (request: wire.TailSubscribeRequest): Promise<PeerCallError> =>
      new Promise((resolve, reject) => {
        const method = TAIL.Subscribe;
        const call = peers
          .client(nodes[1]!.grpc)
          .makeServerStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, request, {
            deadline: Date.now() + 10_000,
          });
        call.on('data', () => reject(new Error(`answered: ${request.text}`)));
        call.on('error', (error: grpc.ServiceError) => resolve(PeerCallError.from(nodes[1]!.grpc, error)));
      });
    try {
      const now = Date.now() * 1000;
      const cases: [wire.TailSubscribeRequest, grpc.status, string, RegExp][] = [
        [
          { protocol_version: protocolVersion(), text: 'from web | wher x', now_micros: now },
          grpc.status.INVALID_ARGUMENT,
          'invalid-tail-query',
          /does not parse/,
        ],
        [
          { protocol_version: protocolVersion(), text: 'from web | stats count()', now_micros: now },
          grpc.status.INVALID_ARGUMENT,
          'invalid-tail-query',
          /stats/,
        ],
        [
          { protocol_version: protocolVersion(), text: 'from web', now_micros: -5 },
          grpc.status.INVALID_ARGUMENT,
          'invalid-tail-query',
          /now_micros/,
        ],
        [
          { protocol_version: protocolVersion(), text: `from web | where x = "${'y'.repeat(300_000)}"`, now_micros: now },
          grpc.status.INVALID_ARGUMENT,
          'invalid-tail-query',
          /bytes/,
        ],
        [
          { protocol_version: null, text: 'from web', now_micros: now },
          grpc.status.FAILED_PRECONDITION,
          'protocol-version',
          /protocol_version/,
        ],
      ];
      for (const [request, code, reason, message] of cases) {
        const refused = await subscribe(request);
        assert.equal(refused.code, code, refused.details);
        assert.equal(refused.reason, reason, refused.details);
        assert.match(refused.details, message);
      }
      assert.equal((await tailStatus(nodes[1]!)).subscriber_count, 0, 'a refused subscription listens to nothing');
    } finally {
      peers.close();
    }
  });
});
