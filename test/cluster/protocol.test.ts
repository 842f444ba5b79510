/**
 * The protocol's versioning rule (proto/README.md) against a real member process: a message of a
 * next release (fields this one lacks, a newer minor) is understood, and the newer node reads the
 * fields this one does not send as their defaults; a peer of an unknown major, or none, is refused
 * with the reason and a message naming the versions. NodeInfo.Stats answers the node's counts.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import path from 'path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import type * as wire from '../../node/cluster/grpc/messages';
import { PeerClients } from '../../node/cluster/grpc/peers';
import { LOADER_OPTIONS, MEMBERSHIP, NODE_INFO, PROTO_FILE } from '../../node/cluster/grpc/proto';
import { formatVersion, PROTOCOL_VERSION } from '../../node/cluster/protocol';
import { waitUntil } from '../helpers/api';
import { freePort, tempDir } from '../helpers/server';
import { MemberProcess } from './member-process';
import { refusal } from './helpers/refusal';

/** trawl.proto as a next release might write it: a field added to a request and to a reply. */
function nextReleaseProto(): string {
  const text = fs
    .readFileSync(PROTO_FILE, 'utf8')
    .replace('message HeartbeatRequest {', 'message HeartbeatRequest {\n  string zone = 9;')
    .replace('message HeartbeatReply {', 'message HeartbeatReply {\n  uint32 shard_slots = 9;');
  assert.ok(text.includes('string zone = 9;') && text.includes('uint32 shard_slots = 9;'));
  const file = path.join(tempDir('trawl-proto-'), 'trawl.proto');
  fs.writeFileSync(file, text);
  return file;
}

describe('node-to-node protocol versions', function () {
  this.timeout(30_000);
  let member: MemberProcess;
  let address: string;
  const peers = new PeerClients();

  before(async () => {
    address = `127.0.0.1:${await freePort()}`;
    member = await MemberProcess.start({
      id: 'solo',
      http: '127.0.0.1:7480',
      grpc: address,
      seeds: [address],
      dataDir: tempDir('trawl-member-'),
      heartbeatMs: 100,
      failureMs: 600,
      joinTimeoutMs: 5_000,
      bucketSpanMs: 3_600_000,
    });
  });

  after(async () => {
    peers.close();
    await member.kill();
  });

  it('a next release with new fields and a newer minor is understood, and reads what this one lacks as defaults', async () => {
    const definition = loadSync(nextReleaseProto(), LOADER_OPTIONS);
    const heartbeat = (definition['trawl.v1.Membership'] as grpc.ServiceDefinition).Heartbeat as grpc.MethodDefinition<object, any>;
    const future = { id: 'from-the-future', http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' };
    const reply = await peers.call(
      address,
      heartbeat,
      { protocol_version: { major: 1, minor: 7 }, from: future, state_version: 0, payload_version: 0, zone: 'eu-1' },
      5_000,
    );
    assert.equal(reply.node_id, 'solo');
    assert.deepEqual(reply.protocol_version, { ...PROTOCOL_VERSION });
    assert.equal(reply.state_version, 1, 'the founded state');
    assert.equal(reply.shard_slots, 0, 'a field this release does not send reads as its default');
  });

  it('a peer of an unknown major, or of none, is refused with the versions named', async () => {
    const refused = refusal;
    const node = { id: 'n9', http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' };
    const heartbeat = { from: node, state_version: 0, payload_version: 0, hints_for: [] };
    const major2 = await refused(
      peers.call(address, MEMBERSHIP.Heartbeat, { ...heartbeat, protocol_version: { major: 2, minor: 0 } }, 5_000),
    );
    assert.equal(major2.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(major2.reason, 'protocol-version');
    assert.ok(
      major2.details.includes(
        `node n9 speaks protocol 2.0, which this node (protocol ${formatVersion(PROTOCOL_VERSION)}) does not know; it speaks 1.x`,
      ),
      major2.details,
    );

    const none = await refused(peers.call(address, MEMBERSHIP.Heartbeat, { ...heartbeat, protocol_version: null }, 5_000));
    assert.equal(none.reason, 'protocol-version');
    assert.match(none.details, /sent no protocol_version/);

    const join = await refused(peers.call(address, MEMBERSHIP.Join, { protocol_version: { major: 2, minor: 1 }, node }, 5_000));
    assert.equal(join.reason, 'protocol-version');
    assert.equal((await member.ask('view')).state.version, 1, 'the refused join changed nothing');
  });

  it('a node of a release before epoch layouts (1.3) is refused a join once the epochs have a layout', async () => {
    const old = { id: 'before-layouts', http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' };
    const before = (await member.ask('view')).state;
    assert.equal(before.epochs[0].layout, 'dealt', 'a new cluster deals its partitions');
    const refused = await refusal(peers.call(address, MEMBERSHIP.Join, { protocol_version: { major: 1, minor: 3 }, node: old }, 5_000));
    assert.equal(refused.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(refused.reason, 'protocol-version');
    assert.match(
      refused.details,
      /node before-layouts speaks protocol 1\.3, which places every ring epoch on the consistent-hash ring; this cluster places data by epochs with a layout \(protocol 1\.4\)/,
    );
    assert.equal((await member.ask('view')).state.version, before.version, 'the refused join changed nothing');
  });

  it('while a cluster forms, a seed of a release before layouts joins and every epoch places on the ring, later ones too', async () => {
    const [masterAddress, oldAddress] = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
    const master = await MemberProcess.start({
      id: 'master',
      http: '127.0.0.1:7481',
      grpc: masterAddress,
      seeds: [masterAddress, oldAddress],
      dataDir: tempDir('trawl-member-'),
      heartbeatMs: 100,
      failureMs: 600,
      joinTimeoutMs: 5_000,
      bucketSpanMs: 3_600_000,
    });
    try {
      const join = (node: wire.Member, minor: number) =>
        peers.call(masterAddress, MEMBERSHIP.Join, { protocol_version: { major: 1, minor }, node }, 5_000);
      const joined = await join({ id: 'old-seed', http: '127.0.0.1:3', grpc: oldAddress, role: 'all' }, 3);
      assert.deepEqual(joined.state?.forming, [], 'the last seed joined');
      assert.deepEqual(
        joined.state?.epochs.map((epoch) => [epoch.members, epoch.layout]),
        [[['master', 'old-seed'], '']],
        'epoch 0 places on the ring: the old seed would read it so',
      );
      const later = await join({ id: 'new-node', http: '127.0.0.1:5', grpc: `127.0.0.1:${await freePort()}`, role: 'all' }, 4);
      assert.deepEqual(
        later.state?.epochs.map((epoch) => [epoch.members, epoch.layout]),
        [
          [['master', 'old-seed'], ''],
          [['master', 'new-node', 'old-seed'], ''],
        ],
        'a member of a release before layouts keeps new epochs on the ring',
      );
    } finally {
      await master.kill();
    }
  });

  it('NodeInfo.Stats answers the node counts', async () => {
    await member.ask('ingest', { index: 'web', count: 3, timeMs: Date.UTC(2026, 0, 1) });
    const stats = () => peers.call(address, NODE_INFO.Stats, { protocol_version: { major: 1, minor: 0 } }, 5_000);
    // The counts are cached for half a heartbeat.
    await waitUntil(async () => (await stats()).stats?.events === 3, 5_000, 'the ingested events counted');
    const reply = await stats();
    assert.equal(reply.stats?.node_id, 'solo');
    assert.equal(reply.stats?.events, 3);
    assert.equal(reply.stats?.buffered_events, 3);
    assert.equal(reply.stats?.segments, 0);
    assert.deepEqual(reply.stats?.indexes, ['web']);
    assert.ok(reply.stats!.storage_bytes > 0);
  });
});
