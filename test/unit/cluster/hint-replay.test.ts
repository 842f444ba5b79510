/**
 * Hint replay over real gRPC between two storage engines in this process: the holder's hints go to
 * the owner's ShardWrite service oldest first, at the rate asked, stop when the owner is seen down
 * (the hints not yet acknowledged stay), and go on once it is up again, each applied exactly once.
 * Who is up is this test's to say: a stand-in for membership's view, the one thing not real here.
 */
import { strict as assert } from 'assert';
import { EventEmitter } from 'events';
import client from 'prom-client';
import type { Logger } from '../../../node/core/logger';
import type { ClusterState } from '../../../node/cluster/cluster-state';
import { PeerClients } from '../../../node/cluster/grpc/peers';
import { GrpcServer } from '../../../node/cluster/grpc/server';
import { HintReplayer } from '../../../node/cluster/hint-replay';
import { HintReports } from '../../../node/cluster/hint-reports';
import { AppliedShares } from '../../../node/cluster/applied-shares';
import { AppliedHints, HintStore } from '../../../node/cluster/hints';
import type { MembershipEvents } from '../../../node/cluster/membership';
import { addShardWriteService } from '../../../node/cluster/shard-write';
import { ShareFloors } from '../../../node/cluster/share-floors';
import { ClusterMetrics } from '../../../node/metrics/metrics';
import { encodeChunkRecord } from '../../../storage/buffer/chunk-record';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { StorageEngine } from '../../../storage/engine';
import { indexMatcher } from '../../../storage/scan';
import { waitUntil } from '../../helpers/api';
import { tempDir } from '../../helpers/server';
import { openTestEngine } from '../../helpers/engine';

const PLACEMENT = { bucketSpanMicros: 3600e6, partitions: 4 };
const HINTS = 12;
const EVENTS_A_HINT = 20;

function open(dataDir: string): Promise<StorageEngine> {
  return openTestEngine({ dataDir, placement: PLACEMENT, segmentMaxEvents: 100_000 });
}

function hintRecord(seq: number): Buffer {
  const time = Date.UTC(2026, 0, 1) * 1000;
  const events = Array.from({ length: EVENTS_A_HINT }, (_, i) => ({
    time: time + i,
    raw: `hint ${seq} event ${i}`,
    index: 'main',
    fields: { host: `h${i % 3}` },
  }));
  return encodeChunkRecord(chunkEvents(events, PLACEMENT), PLACEMENT);
}

/** Membership as the replayer sees it: the owner's address, and whether it is up (this test decides). */
class OwnerView extends EventEmitter<MembershipEvents> {
  up = true;
  readonly hintReports = new HintReports();

  constructor(private readonly address: string) {
    super();
  }

  state(): ClusterState {
    return {
      version: 1,
      members: [{ id: 'owner', http: '127.0.0.1:1', grpc: this.address, role: 'all' }],
      epochs: [],
      removed: [],
      forming: [],
      storedAlone: [],
      forgotten: [],
    };
  }

  livenessOf(): { up: boolean; lastHeartbeatMs: number | null; stats: null } {
    return { up: this.up, lastHeartbeatMs: 0, stats: null };
  }
}

function quietLogger(lines: string[]): Logger {
  const keep = (line: string): void => void lines.push(line);
  return { info: keep, warn: keep, error: keep };
}

describe('hint replay', function () {
  this.timeout(30_000);

  it('sends hints oldest first at the rate asked, stops when the owner is down, and resumes without a duplicate', async () => {
    const owner = await open(tempDir());
    const holder = await open(tempDir());
    const registry = new client.Registry();
    const hints = await HintStore.open(holder.records('hints'));
    const metrics = new ClusterMetrics(registry, {
      pendingByTarget: () => hints.pendingByTarget(),
      pendingBytes: (t) => hints.pendingBytes(t),
      holdersByTarget: () => new Map(),
    });
    const server = new GrpcServer();
    const applied = await AppliedHints.open(owner.records('applied-hints'));
    const log: string[] = [];
    // The owner's own view: both nodes are members, and a ring of the owner alone places every key.
    const ownerState: ClusterState = {
      version: 1,
      members: [
        { id: 'holder', http: '127.0.0.1:2', grpc: '127.0.0.1:3', role: 'all' },
        { id: 'owner', http: '127.0.0.1:1', grpc: '127.0.0.1:4', role: 'all' },
      ],
      epochs: [{ epoch: 0, fromMicros: 0, members: ['owner'] }],
      removed: [],
      forming: [],
      storedAlone: [],
      forgotten: [],
    };
    addShardWriteService(server, {
      self: 'owner',
      membership: { state: () => ownerState },
      replicationFactor: 1,
      engine: owner,
      appliedHints: applied,
      appliedShares: new AppliedShares(owner.records('applied-shares')),
      maxBufferedEvents: () => 1_000_000,
      metrics,
      logger: quietLogger(log),
      onFailure: (error) => assert.fail(error),
    });
    const port = await server.listen('127.0.0.1:0');
    const peers = new PeerClients(100);
    const view = new OwnerView(`127.0.0.1:${port}`);

    const records = Array.from({ length: HINTS }, (_, i) => hintRecord(i + 1));
    for (const record of records) await hints.add('owner', record);
    const bytes = records[0]!.length;
    // Four hints a second: the twelve take at least 11 / 4 s when nothing stops them.
    const bytesPerSecond = bytes * 4;
    view.up = false;
    const replayer = new HintReplayer({
      self: 'holder',
      hints,
      floors: new ShareFloors(hints),
      membership: view,
      peers,
      metrics,
      logger: quietLogger(log),
      checkIntervalMs: 50,
      bytesPerSecond,
    });
    const ownerEvents = () => owner.countRows({ index: indexMatcher(['*']), fromMicros: 0, toMicros: Number.MAX_SAFE_INTEGER });
    try {
      replayer.start();
      const started = Date.now();
      view.up = true;
      view.emit('member-up', 'owner');
      await waitUntil(() => hints.pending('owner') <= HINTS - 3, 10_000, 'three hints replayed');
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 2 * 250 - 20, `three hints at four a second take at least 500 ms (took ${elapsed})`);

      view.up = false;
      await waitUntil(() => log.some((line) => /replayed \d+ hints to node owner, \d+ left; stopped/.test(line)), 10_000, 'replay to stop');
      const left = hints.pending('owner');
      assert.ok(left > 0 && left < HINTS - 2, `some hints left (${left})`);
      assert.equal(await ownerEvents(), (HINTS - left) * EVENTS_A_HINT, 'the owner holds exactly the acknowledged hints');
      // The ones left are the newest: the oldest went first.
      assert.deepEqual(
        (await hints.oldest('owner', HINTS)).map((hint) => hint.seq),
        Array.from({ length: left }, (_, i) => HINTS - left + i + 1),
      );

      view.up = true;
      view.emit('member-up', 'owner');
      await waitUntil(() => hints.pending('owner') === 0, 15_000, 'the rest replayed');
      assert.equal(await ownerEvents(), HINTS * EVENTS_A_HINT, 'every hint applied once');
      assert.equal(applied.applied(`holder/${hints.logId}`, HINTS), true);
      const replayed = (await registry.getSingleMetric('trawl_hints_replayed_total')!.get()).values.find(
        (value) => value.labels.target === 'owner',
      );
      assert.equal(replayed?.value, HINTS);
    } finally {
      await replayer.close();
      peers.close();
      await server.close(100);
      await owner.close();
      await holder.close();
    }
  });
});
