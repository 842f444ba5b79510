/**
 * Membership between real processes on loopback (test/cluster/harness/member.ts: a storage engine,
 * a gRPC server and a Membership each), with short intervals (heartbeat 100 ms, failure timeout
 * 600 ms). n1 (the master, seeds[0]), n2 (the second seed) and n3 join; on a cluster of three
 * of its own, each case kills, restarts, refuses, removes or promotes (n2, by reordering the seeds);
 * the cases that only read share one cluster. No case relies on what another left.
 */
import { strict as assert } from 'assert';
import type { ClusterState } from '../../node/cluster/cluster-state';
import { waitUntil } from '../helpers/api';
import { freePort, tempDir } from '../helpers/server';
import type { MemberConfig } from './harness/member';
import { MemberProcess, MemberStartFailure } from './member-process';

const HEARTBEAT_MS = 100;
const FAILURE_MS = 600;
/** Room for scheduling on a busy machine: a down node must be seen within FAILURE_MS plus this. */
const DETECTION_MARGIN_MS = 2000;
const BUCKET_SPAN_MS = 3_600_000;
const SETTLE_MS = 10_000;

async function grpcAddress(): Promise<string> {
  return `127.0.0.1:${await freePort()}`;
}

function memberConfig(id: string, grpc: string, seeds: string[], dataDir = tempDir('trawl-member-')): MemberConfig {
  return {
    id,
    http: `127.0.0.1:${7400 + Number(id.slice(1))}`,
    grpc,
    seeds,
    dataDir,
    heartbeatMs: HEARTBEAT_MS,
    failureMs: FAILURE_MS,
    joinTimeoutMs: 5_000,
    bucketSpanMs: BUCKET_SPAN_MS,
  };
}

interface View {
  state: ClusterState;
  members: { member: { id: string }; up: boolean; lastHeartbeatMs: number | null; removed: boolean; epochs: number[] }[];
  master: { id: string | null; address: string; up: boolean };
  isMaster: boolean;
}

const view = (member: MemberProcess): Promise<View> => member.ask('view');
const upIds = (seen: View): string[] =>
  seen.members
    .filter((each) => each.up)
    .map((each) => each.member.id)
    .sort();

/** A start that must be refused: the refusal it printed and its exit code. */
async function refusedStart(config: MemberConfig): Promise<MemberStartFailure> {
  try {
    const member = await MemberProcess.start(config);
    await member.kill();
  } catch (error) {
    if (error instanceof MemberStartFailure) return error;
    throw error;
  }
  throw new Error(`member ${config.id} started, but it should have been refused`);
}

/** A new epoch starts on a whole second five heartbeats after its decision, whatever the bucket span: within seconds. */
function assertEpochStart(fromMicros: number, decidedAfterMs: number): void {
  assert.equal(fromMicros % 1_000_000, 0, `epoch start ${fromMicros} is on a whole second`);
  assert.ok(
    fromMicros >= (decidedAfterMs + 5 * HEARTBEAT_MS) * 1000,
    `epoch start ${fromMicros} is at least five heartbeats after the decision`,
  );
  assert.ok(fromMicros < (Date.now() + 5 * HEARTBEAT_MS + 1000) * 1000, `epoch start ${fromMicros} is within seconds`);
}

describe('cluster membership: member processes on loopback', function () {
  this.timeout(60_000);
  const running = new Set<MemberProcess>();
  let seedA: string;
  let seedB: string;
  let addressC: string;
  let configA: MemberConfig;
  let configB: MemberConfig;
  let configC: MemberConfig;
  let a: MemberProcess;
  let b: MemberProcess;
  let c: MemberProcess;

  async function start(config: MemberConfig): Promise<MemberProcess> {
    const member = await MemberProcess.start(config);
    running.add(member);
    return member;
  }

  async function kill(member: MemberProcess): Promise<void> {
    await member.kill();
    running.delete(member);
  }

  async function killAll(): Promise<void> {
    await Promise.all([...running].map((member) => member.kill()));
    running.clear();
  }

  /** Every node in `members` agrees on the state version and sees exactly `up` as up. */
  async function settle(members: MemberProcess[], version: number, up: string[]): Promise<View[]> {
    let views: View[] = [];
    await waitUntil(
      async () => {
        views = await Promise.all(members.map(view));
        return views.every((seen) => seen.state.version === version && JSON.stringify(upIds(seen)) === JSON.stringify(up));
      },
      SETTLE_MS,
      `${members.map((member) => member.id).join(', ')} at state v${version} with ${up.join(', ')} up`,
    );
    return views;
  }

  /** New addresses and data dirs for n1, n2 (the two seeds) and n3. */
  async function newConfigs(): Promise<void> {
    [seedA, seedB, addressC] = await Promise.all([grpcAddress(), grpcAddress(), grpcAddress()]);
    configA = memberConfig('n1', seedA, [seedA, seedB]);
    configB = memberConfig('n2', seedB, [seedA, seedB]);
    configC = memberConfig('n3', addressC, [seedA, seedB]);
  }

  /** A new cluster: n1, n2 and n3 started in turn, at state v3 (founded, formed, n3 joined) with all three up. */
  async function startThree(): Promise<void> {
    await newConfigs();
    a = await start(configA);
    b = await start(configB);
    c = await start(configC);
    await settle([a, b, c], 3, ['n1', 'n2', 'n3']);
  }

  /** n1 flushes 5 events of web, n2 buffers 7 of web and n3 11 of db; `via` reports each node's count. */
  async function ingestOnThree(via: MemberProcess): Promise<any> {
    const timeMs = Date.UTC(2026, 0, 1, 10, 0, 0);
    await a.ask('ingest', { index: 'web', count: 5, timeMs });
    assert.equal(await a.ask('flush'), 1);
    await b.ask('ingest', { index: 'web', count: 7, timeMs });
    await c.ask('ingest', { index: 'db', count: 11, timeMs });
    let status: any;
    await waitUntil(
      async () => {
        status = await via.ask('status');
        return JSON.stringify(status.nodes.map((node: any) => node.events)) === '[5,7,11]';
      },
      SETTLE_MS,
      'the nodes counts in the status',
    );
    return status;
  }

  after(killAll);

  describe('joining', () => {
    afterEach(killAll);

    it('three nodes join: the seeds form ring epoch 0, a later node gets an epoch ahead; all see all three up', async () => {
      await newConfigs();
      const startedMs = Date.now();
      a = await start(configA);
      assert.deepEqual((await view(a)).state.forming, [seedB], 'the master waits for the other seed');
      b = await start(configB);
      c = await start(configC);
      // Founding (v1), the second seed into epoch 0 (v2, formed) and a join ahead (v3).
      const views = await settle([a, b, c], 3, ['n1', 'n2', 'n3']);
      const state = views[0]!.state;
      assert.deepEqual(
        state.members,
        [configA, configB, configC].map((config) => ({ id: config.id, http: config.http, grpc: config.grpc, role: 'all' })),
      );
      assert.deepEqual(state.removed, []);
      assert.deepEqual(state.forming, []);
      assert.equal(state.epochs.length, 2);
      assert.deepEqual(state.epochs[0], { epoch: 0, fromMicros: 0, members: ['n1', 'n2'], layout: 'dealt' });
      assert.deepEqual(
        state.epochs.slice(1).map((epoch) => [epoch.epoch, epoch.members]),
        [[1, ['n1', 'n2', 'n3']]],
      );
      for (const epoch of state.epochs.slice(1)) assertEpochStart(epoch.fromMicros, startedMs);
      for (const seen of views) {
        assert.deepEqual(seen.state, state);
        assert.deepEqual(seen.master, { address: seedA, id: 'n1', self: seen === views[0], up: true });
      }
    });
  });

  describe('a cluster of three, read by each case', () => {
    before(startThree);
    after(killAll);

    it('/cluster/status from membership: each node with its own counts, sums over the nodes that are up', async () => {
      const status = await ingestOnThree(b);
      assert.equal(status.status, 'healthy');
      assert.equal(status.mode, 'cluster');
      assert.equal(status.node_count, 3);
      assert.equal(status.state_version, 3);
      assert.deepEqual(status.master, { id: 'n1', grpc_address: seedA, up: true });
      assert.equal(status.nodes.length, 3);
      const expected = [
        { config: configA, epochs: [0, 1], segments: 1, buffered: 0 },
        { config: configB, epochs: [0, 1], segments: 0, buffered: 7 },
        { config: configC, epochs: [1], segments: 0, buffered: 11 },
      ];
      expected.forEach(({ config, epochs, segments, buffered }, i) => {
        const node = status.nodes[i];
        assert.equal(node.id, config.id);
        assert.equal(node.address, config.http);
        assert.equal(node.grpc_address, config.grpc);
        assert.equal(node.role, 'all');
        assert.equal(node.state, 'up');
        assert.equal(node.master, config === configA);
        assert.equal(node.removed, false);
        assert.ok(Date.now() - Date.parse(node.last_heartbeat) < SETTLE_MS, `${config.id} last_heartbeat ${node.last_heartbeat}`);
        assert.deepEqual(node.epochs, epochs);
        assert.equal(node.segments, segments, `${config.id} segments`);
        assert.equal(node.buffered_events, buffered, `${config.id} buffered events`);
        assert.ok(node.storage_bytes > 0, `${config.id} storage bytes`);
      });
      assert.equal(status.index_count, 2, 'web and db');
      assert.equal(status.segment_count, 1);
      assert.equal(status.buffered_events, 18);
      assert.ok(status.buffered_size > 0);
      assert.equal(status.data_dir, configB.dataDir);
    });

    it('a node whose id another node holds at another address is refused with NodeIdTakenError; so is a join asked of a node that is not the master', async () => {
      const impostor = memberConfig('n2', await grpcAddress(), [seedA, seedB]);
      const taken = await refusedStart(impostor);
      assert.equal(taken.error.name, 'NodeIdTakenError');
      assert.equal(taken.error.reason, 'node-id-taken');
      assert.match(taken.error.message, new RegExp(`"n2" is already taken in this cluster by the node at ${seedB}`));
      assert.equal(taken.exitCode, 1);

      const misled = memberConfig('n5', await grpcAddress(), [addressC, seedA]);
      const notMaster = await refusedStart(misled);
      assert.equal(notMaster.error.name, 'JoinRefusedError');
      assert.equal(notMaster.error.reason, 'not-master');
      assert.match(notMaster.error.message, /n3 .* is not the master/);
      assert.equal((await view(a)).state.version, 3, 'a refused join changes nothing');
    });
  });

  describe('a cluster of three for each case', () => {
    beforeEach(startThree);
    afterEach(killAll);

    it('kill -9 of a node: the others see it down within failure_timeout, and up again after its restart', async () => {
      // Counts of its own, heard by n1: after the kill its sums cover n1 and n2 alone.
      await ingestOnThree(a);
      await kill(c);
      const killedMs = Date.now();
      let seenDownMs = 0;
      await waitUntil(
        async () => {
          const views = await Promise.all([view(a), view(b)]);
          seenDownMs = Date.now();
          return views.every((seen) => !upIds(seen).includes('n3'));
        },
        FAILURE_MS + DETECTION_MARGIN_MS,
        'n1 and n2 to see n3 down',
      );
      assert.ok(seenDownMs - killedMs <= FAILURE_MS + DETECTION_MARGIN_MS);
      const events: { event: string; id?: string; atMs: number }[] = await a.ask('events');
      assert.ok(
        events.some((event) => event.event === 'member-down' && event.id === 'n3' && event.atMs >= killedMs),
        'n1 reported n3 down',
      );

      const status = await a.ask('status');
      assert.equal(status.status, 'degraded');
      const down = status.nodes.find((node: any) => node.id === 'n3');
      assert.equal(down.state, 'down');
      assert.equal(down.events, null, 'a node that is down has no current counts');
      assert.equal(status.buffered_events, 7, 'sums cover the nodes that are up');

      c = await start(configC);
      const views = await settle([a, b, c], 3, ['n1', 'n2', 'n3']);
      // It came back from its own stored state: no join, no new version.
      assert.deepEqual(views[2]!.state, views[0]!.state);
      assert.equal((await a.ask('status')).status, 'healthy');
    });

    it('while the master is down a member restarts from its stored state and a join fails naming the master; the restarted master has its state', async () => {
      await kill(a);
      await waitUntil(
        async () => !(await view(b)).master.up && !(await view(c)).master.up,
        FAILURE_MS + DETECTION_MARGIN_MS,
        'the master seen down',
      );
      await kill(c);
      c = await start(configC);
      const [, stored] = await settle([b, c], 3, ['n2', 'n3']);
      assert.deepEqual(stored!.master, { address: seedA, id: 'n1', self: false, up: false });
      assert.match(c.output, /going on with the stored cluster state v3; the master n1 at .* did not answer/);

      const joiner = { ...memberConfig('n4', await grpcAddress(), [seedA, seedB]), joinTimeoutMs: 500 };
      const refusal = await refusedStart(joiner);
      assert.equal(refusal.error.name, 'MasterUnavailableError');
      // A node that never joined knows the master by its address only.
      assert.match(
        refusal.error.message,
        new RegExp(
          `node n4 cannot join the cluster: the master at ${seedA} does not answer \\(connection refused: nothing listens at that address\\)\\. Check that the master runs`,
        ),
      );
      assert.doesNotMatch(refusal.error.message, /ECONNREFUSED|Resolution note/, 'no transport noise');
      assert.equal(refusal.exitCode, 1);

      a = await start(configA);
      const views = await settle([a, b, c], 3, ['n1', 'n2', 'n3']);
      assert.equal(views[0]!.isMaster, true);
      assert.deepEqual(views[0]!.state, views[1]!.state);
    });

    it('a master restarted with an empty data dir takes the cluster state back from the members', async () => {
      const before = (await view(b)).state;
      await kill(a);
      a = await start({ ...configA, dataDir: tempDir('trawl-member-') });
      const views = await settle([a, b, c], before.version, ['n1', 'n2', 'n3']);
      assert.deepEqual(views[0]!.state, before);
      assert.equal(views[0]!.isMaster, true);
    });

    it('the payload travels with the state: pushed to every node, and pulled by a node that missed the push', async () => {
      assert.deepEqual(await a.ask('publish', { text: 'first' }), { reached: ['n2', 'n3'], missed: [] });
      for (const member of [b, c]) assert.deepEqual(await member.ask('note'), { version: 1, text: 'first' });

      await kill(c);
      await waitUntil(async () => !upIds(await view(a)).includes('n3'), FAILURE_MS + DETECTION_MARGIN_MS, 'n3 seen down');
      assert.deepEqual(await a.ask('publish', { text: 'second' }), { reached: ['n2'], missed: ['n3'] });
      c = await start(configC);
      await waitUntil(async () => (await c.ask('note')).version === 2, SETTLE_MS, 'n3 to pull the note it missed');
      assert.deepEqual(await c.ask('note'), { version: 2, text: 'second' });
    });

    it('remove(nodeId) on the master: a new ring epoch without the node, which stays a member while it runs', async () => {
      await assert.rejects(b.ask('remove', { id: 'n3' }), (error: any) => error.name === 'NotMasterError' && error.message.includes(seedA));
      await assert.rejects(
        a.ask('remove', { id: 'n9' }),
        (error: any) => error.name === 'RemoveRefusedError' && /not a member/.test(error.message),
      );
      const decidedMs = Date.now();
      const state: ClusterState = await a.ask('remove', { id: 'n3' });
      assert.equal(state.version, 4);
      assert.deepEqual(state.removed, ['n3']);
      assert.deepEqual(
        state.members.map((member) => member.id),
        ['n1', 'n2', 'n3'],
      );
      const epoch = state.epochs[2]!;
      assert.deepEqual([epoch.epoch, epoch.members], [2, ['n1', 'n2']]);
      assertEpochStart(epoch.fromMicros, decidedMs);

      const views = await settle([a, b, c], 4, ['n1', 'n2', 'n3']);
      for (const seen of views) assert.deepEqual(seen.state, state);
      const status = await b.ask('status');
      assert.equal(status.status, 'healthy');
      assert.deepEqual(
        status.nodes.map((node: any) => [node.id, node.removed, node.epochs]),
        [
          ['n1', false, [0, 1, 2]],
          ['n2', false, [0, 1, 2]],
          ['n3', true, [1]],
        ],
      );
      await assert.rejects(
        a.ask('remove', { id: 'n3' }),
        (error: any) => error.name === 'RemoveRefusedError' && /already removed/.test(error.message),
      );
    });

    it('a seed promoted by reordering the seeds serves the same state and takes joins', async () => {
      // n3 removed first: the last ring epoch (2) is n1 and n2.
      await a.ask('remove', { id: 'n3' });
      await settle([a, b, c], 4, ['n1', 'n2', 'n3']);
      const before = (await view(a)).state;
      await kill(a);
      await b.stop();
      running.delete(b);
      await c.stop();
      running.delete(c);
      const promoted = [seedB, seedA];
      b = await start({ ...configB, seeds: promoted });
      c = await start({ ...configC, seeds: promoted });
      const views = await settle([b, c], before.version, ['n2', 'n3']);
      assert.equal(views[0]!.isMaster, true);
      assert.deepEqual(views[0]!.state, before);
      assert.deepEqual(views[1]!.master, { address: seedB, id: 'n2', self: false, up: true });

      const joinedMs = Date.now();
      const d = await start(memberConfig('n4', await grpcAddress(), promoted));
      const [state] = (await settle([b, c, d], before.version + 1, ['n2', 'n3', 'n4'])).map((seen) => seen.state);
      const epoch = state!.epochs.at(-1)!;
      // The ring of the last epoch (n1 was never removed, n3 was) and the new node.
      assert.deepEqual([epoch.epoch, epoch.members], [3, ['n1', 'n2', 'n4']]);
      assertEpochStart(epoch.fromMicros, joinedMs);
    });
  });
});
