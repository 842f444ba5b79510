/**
 * ShardWrite on a real node, called as a peer calls it: a replayed hint is applied at most once
 * (sent again after a lost answer, two copies at once, or again after the owner was killed), and
 * records that are not this node's to append are refused with their reason.
 */
import { strict as assert } from 'assert';
import { PeerClients } from '../../node/cluster/grpc/peers';
import { SHARD_WRITE } from '../../node/cluster/grpc/proto';
import { protocolVersion } from '../../node/cluster/grpc/wire';
import { encodeChunkRecord } from '../../storage/buffer/chunk-record';
import { chunkEvents } from '../../storage/buffer/event-chunk';
import type { LogEvent } from '../../storage/core/event';
import type { Placement } from '../../storage/core/partition';
import { startClusteredServers, stopClusteredServers, storedEvents, type ClusteredServer } from './helpers/clustered-servers';
import { BUCKET_SPAN_MICROS, PARTITIONS } from './helpers/placement';
import { refusal } from './helpers/refusal';

const PLACEMENT: Placement = { bucketSpanMicros: BUCKET_SPAN_MICROS, partitions: PARTITIONS };

function record(tag: string, count: number, placement = PLACEMENT): Buffer {
  const now = Date.now() * 1000;
  const events: LogEvent[] = Array.from({ length: count }, (_, i) => ({
    time: now - i * 1_000_000,
    raw: `${tag} ${i}`,
    index: 'main',
    fields: { host: `h${i % 7}`, source: 'replay' },
  }));
  return encodeChunkRecord(chunkEvents(events, placement), placement);
}

describe('ShardWrite on a node of two', function () {
  this.timeout(60_000);
  let nodes: ClusteredServer[] = [];
  const peers = new PeerClients(1000);

  before(async () => {
    // Two nodes at replication 2: node1 owns every key, and node2 is the member the calls come from.
    nodes = await startClusteredServers(2, { set: { 'cluster.replication_factor': 2 } });
  });

  after(async () => {
    peers.close();
    await stopClusteredServers(nodes, true);
  });

  const replay = (hintLog: string, seq: number, bytes: Buffer) =>
    peers.call(
      nodes[0]!.grpc,
      SHARD_WRITE.ReplayHint,
      { protocol_version: protocolVersion(), origin: 'node2', hint_log: hintLog, seq, record: bytes, share_id: '', share_floor_ms: 0 },
      10_000,
    );

  it('applies a replayed hint once, however often and however concurrently it is sent, and across a kill', async () => {
    const first = record('first', 50);
    assert.deepEqual(await replay('log-a', 1, first), { protocol_version: protocolVersion(), applied: true, events: 50 });
    assert.deepEqual(
      await replay('log-a', 1, first),
      { protocol_version: protocolVersion(), applied: false, events: 0 },
      'the same hint again',
    );
    assert.equal(await storedEvents(nodes[0]!), 50);

    const second = record('second', 30);
    const copies = await Promise.all([replay('log-a', 2, second), replay('log-a', 2, second), replay('log-a', 2, second)]);
    assert.equal(copies.filter((reply) => reply.applied).length, 1, 'one of three concurrent copies applied');
    assert.equal(await storedEvents(nodes[0]!), 80);

    // The mark was committed with the record: a restarted owner still knows both hints.
    await nodes[0]!.server.kill();
    await nodes[0]!.restart();
    assert.equal((await replay('log-a', 1, first)).applied, false);
    assert.equal((await replay('log-a', 2, second)).applied, false);
    assert.equal(await storedEvents(nodes[0]!), 80);

    // Another log (the origin started again with an empty data dir) numbers from 1 again.
    assert.equal((await replay('log-b', 1, record('other log', 5))).applied, true);
    assert.equal(await storedEvents(nodes[0]!), 85);
  });

  it('applies a share part once, whether it comes again as a Write or as the hint of it, and across a kill', async () => {
    const before = await storedEvents(nodes[0]!);
    const shareId = `${Date.now()}-00112233aabbccdd-0`;
    const part = record('part', 40);
    const write = () =>
      peers.call(
        nodes[0]!.grpc,
        SHARD_WRITE.Write,
        { protocol_version: protocolVersion(), origin: 'node2', record: part, share_id: shareId, share_floor_ms: 0 },
        10_000,
      );
    const hint = (seq: number) =>
      peers.call(
        nodes[0]!.grpc,
        SHARD_WRITE.ReplayHint,
        {
          protocol_version: protocolVersion(),
          origin: 'node2',
          hint_log: 'log-shares',
          seq,
          record: part,
          share_id: shareId,
          share_floor_ms: 0,
        },
        10_000,
      );
    const [first, second] = await Promise.all([write(), write()]);
    assert.equal(first.events, 40);
    assert.equal(second.events, 40, 'a copy of a part held already is answered as stored');
    assert.equal(await storedEvents(nodes[0]!), before + 40);
    assert.equal((await hint(1)).applied, false, 'the hint of a part applied by its Write');
    await nodes[0]!.server.kill();
    await nodes[0]!.restart();
    assert.equal((await hint(2)).applied, false, 'still known after a kill');
    assert.equal((await write()).events, 40);
    assert.equal(await storedEvents(nodes[0]!), before + 40);

    const malformed = await refusal(
      peers.call(
        nodes[0]!.grpc,
        SHARD_WRITE.Write,
        { protocol_version: protocolVersion(), origin: 'node2', record: part, share_id: '../x', share_floor_ms: 0 },
        10_000,
      ),
    );
    assert.equal(malformed.reason, 'invalid-share-id');
  });

  it('refuses a record that is not a chunk record, or one keyed with another placement, storing nothing', async () => {
    const before = await storedEvents(nodes[0]!);
    const write = (bytes: Buffer) =>
      peers.call(
        nodes[0]!.grpc,
        SHARD_WRITE.Write,
        { protocol_version: protocolVersion(), origin: 'node2', record: bytes, share_id: '', share_floor_ms: 0 },
        10_000,
      );
    const garbage = await refusal(write(Buffer.from('not a chunk record')));
    assert.equal(garbage.reason, 'invalid-record');
    assert.match(garbage.details, /the record from node "node2" does not add up \(chunk record: not a chunk record/);

    const otherPlacement = await refusal(write(record('keyed apart', 10, { bucketSpanMicros: BUCKET_SPAN_MICROS, partitions: 4 })));
    assert.equal(otherPlacement.reason, 'placement-mismatch');
    assert.match(otherPlacement.details, /cluster\.partitions 4,.* cluster\.partitions 16,/);

    const noLog = await refusal(replay('', 1, record('no log', 3)));
    assert.equal(noLog.reason, 'invalid-hint');
    assert.equal(await storedEvents(nodes[0]!), before);

    assert.deepEqual(await write(record('a share', 12)), { protocol_version: protocolVersion(), events: 12 });
    assert.equal(await storedEvents(nodes[0]!), before + 12);
  });
});
