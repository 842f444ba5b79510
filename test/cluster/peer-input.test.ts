/**
 * What arrives on a node's gRPC port is checked like what arrives on its HTTP port: hostile
 * ShardWrite and Metadata calls made from this process (no member) with the project's proto are
 * refused with INVALID_ARGUMENT (FAILED_PRECONDITION for a key or an origin the node does not
 * know) and a message naming what is wrong, store nothing, and leave the node flushing, ingesting
 * and stopping cleanly. A bad record already on disk is set aside at startup, not replayed.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import path from 'path';
import { PeerClients } from '../../node/cluster/grpc/peers';
import { METADATA, SHARD_WRITE } from '../../node/cluster/grpc/proto';
import { protocolVersion } from '../../node/cluster/grpc/wire';
import { CURRENT_LAYOUT, type RingEpoch } from '../../node/cluster/epochs';
import { ownersOf } from '../../node/cluster/ring';
import { encodeJsonChunkRecord } from '../../storage/buffer/chunk-record-json';
import { chunkEvents } from '../../storage/buffer/event-chunk';
import type { LogEvent } from '../../storage/core/event';
import { walKey } from '../../storage/core/keys';
import type { Placement } from '../../storage/core/partition';
import { Rocks } from '../../storage/core/rocks';
import { assertError, waitUntil } from '../helpers/api';
import { overClaimingRecord, withHeader } from '../helpers/chunk-records';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, type ClusteredServer } from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { BUCKET_SPAN_MICROS, eventsByOwner, PARTITIONS } from './helpers/placement';
import { taggedEvents } from './helpers/test-events';
import { refusal } from './helpers/refusal';

const PLACEMENT: Placement = { bucketSpanMicros: BUCKET_SPAN_MICROS, partitions: PARTITIONS };
/** The ring the two test nodes form at their start (replication factor 1). */
const EPOCHS: RingEpoch[] = [{ epoch: 0, fromMicros: 0, members: ['node1', 'node2'], layout: CURRENT_LAYOUT }];

/** A record of events now whose keys `owner` alone owns (or, with `owned` false, does not own), with the JSON header of kind 2 (still taken from peers), whose fields the tests below edit by name. */
function recordOwnedBy(owner: string, tag: string, owned = true, index = 'main'): { record: Buffer; events: number } {
  const now = Date.now() * 1000;
  const events: LogEvent[] = Array.from({ length: 64 }, (_, i) => ({
    time: now - i * 1000,
    raw: `${tag} ${i}`,
    index,
    fields: { host: `h${i}`, source: tag },
  }));
  const chunks = chunkEvents(events, PLACEMENT).filter((chunk) => ownersOf(chunk.key, EPOCHS, 1).includes(owner) === owned);
  assert.ok(chunks.length > 0, `some key is ${owned ? '' : 'not '}owned by ${owner}`);
  return { record: encodeJsonChunkRecord(chunks, PLACEMENT), events: chunks.reduce((sum, chunk) => sum + chunk.count, 0) };
}

function headerOf(record: Buffer): { chunks: { key: { partition: number }; times: [number, number] }[] } {
  return JSON.parse(record.toString('utf8', 5, 5 + record.readUInt32LE(1))) as ReturnType<typeof headerOf>;
}

/** The record with the first time of its first chunk made NaN in its bytes. */
function withNaNTime(record: Buffer): Buffer {
  const copy = Buffer.from(record);
  const [offset] = headerOf(record).chunks[0]!.times;
  copy.writeDoubleLE(Number.NaN, Math.ceil((5 + record.readUInt32LE(1)) / 8) * 8 + offset);
  return copy;
}

/** Ingests events through `node` and waits until it holds its share of them, flushed (nothing left buffered). */
async function ingestAndFlush(node: ClusteredServer, tag: string): Promise<void> {
  const events = taggedEvents(tag, 200, 40);
  const share = eventsByOwner(events, { members: ['node1', 'node2'], replicationFactor: 1 }).get(node.id)!;
  assert.ok(share > 0, `${node.id} owns some of the events`);
  const before = await storedEvents(node);
  const answer = await postJson(`${node.api}/ingest`, events);
  assert.equal(answer.status, 200, answer.text);
  await waitUntil(
    async () => {
      const stats = (await request(`${node.api}/stats`)).body.data;
      return stats.total_events === before + share && stats.buffered_events === 0;
    },
    20_000,
    `${node.id} to hold its ${share} events, flushed`,
  );
}

describe('peer input: hostile calls on the gRPC port', function () {
  this.timeout(120_000);
  let nodes: ClusteredServer[] = [];
  const peers = new PeerClients(1000);

  before(async () => {
    nodes = await startClusteredServers(2, { set: { 'storage.flush_interval': '200ms' } });
  });

  after(async () => {
    peers.close();
    await stopClusteredServers(nodes, true);
  });

  const write = (record: Buffer, origin = 'node2') =>
    peers.call(
      nodes[0]!.grpc,
      SHARD_WRITE.Write,
      { protocol_version: protocolVersion(), origin, record, share_id: '', share_floor_ms: 0 },
      10_000,
    );
  const replay = (record: Buffer, origin: string) =>
    peers.call(
      nodes[0]!.grpc,
      SHARD_WRITE.ReplayHint,
      { protocol_version: protocolVersion(), origin, hint_log: 'forged', seq: 1, record, share_id: '', share_floor_ms: 0 },
      10_000,
    );

  it('refuses a record whose header claims 2,000,000 rows but holds one; the node flushes, ingests, restarts and stops cleanly', async () => {
    const [first] = nodes as [ClusteredServer];
    const record = overClaimingRecord(2_000_000, PLACEMENT);
    assert.ok(record.length < 1000, `a small record (${record.length} bytes)`);
    const refused = await refusal(write(record));
    assert.equal(refused.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(refused.reason, 'invalid-record');
    assert.match(
      refused.details,
      /the record from node "node2" does not add up \(chunk record: chunk 0 claims 2000000 rows but holds 1 times\)/,
    );
    assert.equal((await request(`${first.api}/stats`)).body.data.buffered_events, 0);

    await ingestAndFlush(first, 'after-the-claim');
    assert.equal(await first.server.stop(), 0, 'SIGTERM exits 0');
    await first.restart();
    assert.doesNotMatch(first.server.log, /quarantine/);
    await ingestAndFlush(first, 'after-the-restart');
    assert.equal(await first.server.stop(), 0, 'SIGTERM exits 0 again');
    await first.restart();
  });

  it('refuses an index ../../etc, partition 999999, a NaN time, a key it does not own and a forged hint from a non-member, each by name, storing nothing', async () => {
    const [first] = nodes as [ClusteredServer];
    const before = await storedEvents(first);
    const owned = recordOwnedBy('node1', 'hostile');

    const badIndex = await refusal(write(recordOwnedBy('node1', 'etc', true, '../../etc').record));
    assert.equal(badIndex.code, grpc.status.INVALID_ARGUMENT);
    assert.equal(badIndex.reason, 'invalid-record');
    assert.match(badIndex.details, /chunk 0 is of index '\.\.\/\.\.\/etc', which is not an index name/);

    const header = headerOf(owned.record);
    header.chunks[0]!.key.partition = 999_999;
    const badPartition = await refusal(write(withHeader(owned.record, header)));
    assert.equal(badPartition.code, grpc.status.INVALID_ARGUMENT);
    assert.match(badPartition.details, /chunk 0's partition 999999 is not in \[0, 16\)/);

    const nanTime = await refusal(write(withNaNTime(owned.record)));
    assert.equal(nanTime.code, grpc.status.INVALID_ARGUMENT);
    assert.match(nanTime.details, /chunk 0 row 0 has time NaN, not in its bucket/);

    const notOwned = await refusal(write(recordOwnedBy('node1', 'elsewhere', false).record));
    assert.equal(notOwned.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(notOwned.reason, 'not-owner');
    assert.match(
      notOwned.details,
      /node node1 does not own index main, bucket .*, partition \d+ under the ring epochs it knows \(state v\d+; its owners are node2\)/,
    );

    const forged = await refusal(replay(owned.record, 'node9'));
    assert.equal(forged.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(forged.reason, 'unknown-origin');
    assert.match(forged.details, /node "node9" is not a member of the cluster as node node1 knows it/);
    const selfOrigin = await refusal(write(owned.record, 'node1'));
    assert.equal(selfOrigin.code, grpc.status.INVALID_ARGUMENT);

    assert.equal(await storedEvents(first), before, 'nothing stored');
    assert.equal(await metricValue(first, 'trawl_shard_write_refused_total', 'method="Write",reason="invalid-record"'), 3);
    assert.equal(await metricValue(first, 'trawl_shard_write_refused_total', 'method="ReplayHint",reason="unknown-origin"'), 1);
    assert.equal(
      first.server.log.match(/refused ShardWrite\.Write from "node2" \(invalid-record/g)?.length,
      1,
      'logged once per origin and reason',
    );
    assert.match(first.server.log, /refused ShardWrite\.Write from "node2" \(not-owner/);

    // The same share from a member, of keys it owns, is stored.
    assert.deepEqual(await write(owned.record), { protocol_version: protocolVersion(), events: owned.events });
    assert.equal(await storedEvents(first), before + owned.events);
  });

  it('answers Metadata.Apply with a write that is not one INVALID_ARGUMENT and a message, never a stack', async () => {
    const [first] = nodes as [ClusteredServer];
    for (const [json, pattern] of [
      ['null', /the write is not a JSON object/],
      ['[1, 2]', /the write is not a JSON object/],
      ['{"collection": "nope", "op": "create", "record": {}}', /names no metadata collection \("nope"\)/],
      ['{"collection": "saved_queries", "op": "drop"}', /has op "drop", not create, replace or delete/],
      ['{"collection": "saved_queries", "op": "replace", "record": {}}', /to replace names no record id/],
      ['{"collection": "saved_queries", "op": "create", "record": "text"}', /to create holds no record object/],
      ['{not json', /the write is not JSON/],
    ] as const) {
      const refused = await refusal(
        peers.call(first.grpc, METADATA.Apply, { protocol_version: protocolVersion(), write_json: json }, 5_000),
      );
      assert.equal(refused.code, grpc.status.INVALID_ARGUMENT, `${json}: ${refused.details}`);
      assert.equal(refused.reason, 'invalid-write');
      assert.match(refused.details, pattern);
      assert.doesNotMatch(refused.details, /\n\s+at /, 'no stack');
    }
  });

  it('answers a metadata write whose refusal quotes text beyond ASCII, directly and forwarded from another node', async () => {
    const [first, second] = nodes as [ClusteredServer, ClusteredServer];
    // A query that does not parse: the refusal's details (the parse error's suggestion) quote it, emoji and all.
    const record = { name: 'emoji', q: '\u{1F600} é' };
    const write = JSON.stringify({ collection: 'saved_queries', op: 'create', record });
    const refused = await refusal(
      peers.call(first.grpc, METADATA.Apply, { protocol_version: protocolVersion(), write_json: write }, 5_000),
    );
    assert.equal(refused.code, grpc.status.FAILED_PRECONDITION, refused.details);
    assert.equal(refused.reason, 'api-error');
    assert.equal(refused.facts.code, 'INVALID_QUERY');
    assert.match(JSON.parse(refused.facts.details!).suggestion, /\u{1F600} é/u);
    // The master's refusal reaches the client of the node that forwarded the write as the master's 400.
    const forwarded = await postJson(`${second.api}/queries`, record);
    assertError(forwarded, 400, 'INVALID_QUERY', 'a saved query forwarded to the master');
    assert.match(forwarded.body.error.suggestion, /\u{1F600} é/u);
  });

  it('sets a bad record found on disk aside at startup with a line naming it; the node ingests, flushes and stops cleanly', async () => {
    const [first] = nodes as [ClusteredServer];
    assert.equal(await first.server.stop(), 0);
    // Written past every check, as an older build or a flipped bit would leave it.
    const rocks = await Rocks.open(path.join(first.dataDir, 'storage'));
    await rocks.write([{ type: 'put', key: walKey(999_999), value: overClaimingRecord(2_000_000, PLACEMENT) }], true);
    await rocks.close();

    await first.restart();
    assert.match(
      first.server.log,
      /storage: write-buffer record 999999 does not validate and was set aside in the quarantine as q:\d+\/999999, not replayed: chunk record: chunk 0 claims 2000000 rows but holds 1 times/,
    );
    assert.equal((await request(`${first.api}/stats`)).body.data.buffered_events, 0);
    await ingestAndFlush(first, 'after-the-quarantine');
    assert.equal(await first.server.stop(), 0);
    await first.restart();
    assert.doesNotMatch(first.server.log, /quarantine/, 'set aside once');
  });
});
