/**
 * A `head N` over several nodes stops early across them: once one node holds N rows, the N-th
 * newest time is a floor the others heed. Here one node holds the newest hour and the other only
 * older hours; the older one is held back until the floor has reached it, so without the shared
 * floor it would read its blocks to fill its own head, and with it reads nothing. Both ways round
 * over real gRPC (the coordinator's raise sent by RaiseFloor, the callee's sent back in its
 * stream), and in this process; the answers equal one engine holding every event.
 */
import { strict as assert } from 'assert';
import client from 'prom-client';
import { LocalShardTarget } from '../../../coordinator/local-target';
import { QuerySlots } from '../../../coordinator/query-slots';
import { scatterGather, type ClusterView, type ShardCall, type ShardTarget } from '../../../coordinator/scatter-gather';
import type { ShardCounters } from '../../../coordinator/shard-progress';
import { FragmentFloors } from '../../../node/cluster/fragment-floors';
import { PeerClients } from '../../../node/cluster/grpc/peers';
import { GrpcServer } from '../../../node/cluster/grpc/server';
import { RemoteShardTarget } from '../../../node/cluster/remote-shard-target';
import { ShardQueryMetrics } from '../../../node/cluster/shard-query-metrics';
import { addShardQueryService } from '../../../node/cluster/shard-query-service';
import { localScanSource } from '../../../node/core/local-scan-source';
import type { ScanSource } from '../../../query/exec/execute';
import { QueryWorkerPool } from '../../../query/exec/session-pool';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { keyString } from '../../../storage/core/partition';
import { engineHolding } from '../../helpers/engine';
import { mergedAnswer, sessionSpec } from '../../helpers/query-run';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 4 };
const NEWEST_BUCKET = BASE + 2 * HOUR;
const TEXT = 'from main | where n % 3 = 0 | head 5';
const SPEC = sessionSpec(TEXT, { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR });

/** 3,000 events, one every 3 s from BASE: two and a half hours, over several hosts. */
const EVENTS: LogEvent[] = Array.from({ length: 3000 }, (_, i) => ({
  time: BASE + i * 3_000_000,
  raw: `line ${i}`,
  index: 'main',
  fields: { host: `h${i % 5}`, source: 'gen', n: i },
}));

/** The answer from the test's own data: the newest five events whose n is a multiple of 3. */
const WANT = EVENTS.filter((event) => (event.fields.n as number) % 3 === 0)
  .sort((a, b) => b.time - a.time)
  .slice(0, 5)
  .map((event) => event.fields.n);

const chunks = chunkEvents(EVENTS, PLACEMENT);
const keys = [...new Set(chunks.map((chunk) => keyString(chunk.key)))];
/** The newest hour's keys belong to `fresh`, every older one to `old`. */
const ownerOf = (key: string): string => (Number(key.split('|')[1]) >= NEWEST_BUCKET ? 'fresh' : 'old');

function engineWith(owner: string): Promise<StorageEngine> {
  return engineHolding(
    chunks.filter((chunk) => ownerOf(keyString(chunk.key)) === owner),
    { placement: PLACEMENT },
  );
}

/** A scan source whose scans wait for `gate` before they plan. */
function gated(source: ScanSource, gate: Promise<void>): ScanSource {
  return Object.assign(Object.create(source) as ScanSource, {
    planScan: async (...args: Parameters<ScanSource['planScan']>) => (await gate, source.planScan(...args)),
  });
}

/** A floor registry that tells when a caller's raise reached a running fragment. */
class WatchedFloors extends FragmentFloors {
  private heard: () => void = () => undefined;
  readonly raised = new Promise<void>((resolve) => (this.heard = resolve));

  override raise(fragmentId: string, time: number): boolean {
    const running = super.raise(fragmentId, time);
    if (running) this.heard();
    return running;
  }
}

describe('a head over several nodes stops early across them', function () {
  this.timeout(60_000);
  let pool: QueryWorkerPool;
  const engines = new Map<string, StorageEngine>();
  const servers: GrpcServer[] = [];
  const peers = new PeerClients(100);

  before(async () => {
    pool = new QueryWorkerPool(2);
    assert.ok(keys.some((key) => ownerOf(key) === 'fresh') && keys.some((key) => ownerOf(key) === 'old'), 'both nodes hold keys');
    for (const node of ['fresh', 'old']) engines.set(node, await engineWith(node));
  });

  after(async () => {
    for (const server of servers) await server.close(100);
    await pool.close();
    for (const engine of engines.values()) await engine.close().catch(() => undefined);
  });

  const localTarget = (node: string, source: ScanSource = localScanSource(engines.get(node)!)): ShardTarget =>
    new LocalShardTarget(node, source, pool, {
      maxQueryMemoryBytes: () => 1e9,
      pool: null,
      heldIndexes: () => engines.get(node)!.heldIndexNames(),
    });

  /** `node` served over gRPC from this process; its scans wait for `gate`. */
  async function remoteTarget(node: string, gate: Promise<void>, floors: FragmentFloors): Promise<ShardTarget> {
    const server = new GrpcServer();
    addShardQueryService(
      server,
      {
        engine: engines.get(node)!,
        source: gated(localScanSource(engines.get(node)!), gate),
        workers: pool,
        fragment: { maxQueryMemoryBytes: () => 1e9, pool: null, heldIndexes: () => engines.get(node)!.heldIndexNames() },
        slots: new QuerySlots(() => 10),
        maxQueryRuntimeMs: () => 30_000,
        metrics: new ShardQueryMetrics(new client.Registry()),
        floors,
      },
      (error) => assert.fail(error),
    );
    const port = await server.listen('127.0.0.1:0');
    servers.push(server);
    return new RemoteShardTarget(node, `127.0.0.1:${port}`, peers, Date.now() + 30_000, 5_000);
  }

  /** Runs the head over both nodes; returns the answer's n values and what each node read. */
  async function headOver(targets: Record<string, ShardTarget>): Promise<{ ns: unknown[]; read: Map<string, ShardCounters> }> {
    const read = new Map<string, ShardCounters>();
    const view: ClusterView = {
      owners: (key) => [ownerOf(key)],
      usable: () => true,
      target: (node) => ({
        node,
        run: (fragment, call: ShardCall) => targets[node]!.run(fragment, { ...call, onProgress: (counters) => read.set(node, counters) }),
      }),
    };
    const { answers, missing } = await scatterGather(view, SPEC, keys, new AbortController().signal, null);
    assert.equal(missing, 0);
    const data = mergedAnswer(answers, SPEC);
    assert.equal(data.type, 'events');
    return { ns: data.type === 'events' ? data.events.map((event) => event.n) : [], read };
  }

  it('in this process: the node with older data reads nothing once the other filled the head', async () => {
    let freshDone: () => void = () => undefined;
    const freshEnded = new Promise<void>((resolve) => (freshDone = resolve));
    const fresh = localTarget('fresh');
    const { ns, read } = await headOver({
      fresh: { node: 'fresh', run: async (fragment, call) => fresh.run(fragment, call).finally(freshDone) },
      old: localTarget('old', gated(localScanSource(engines.get('old')!), freshEnded)),
    });
    assert.deepEqual(ns, WANT);
    assert.ok(read.get('fresh')!.rowsRead > 0, 'the fresh node read its newest blocks');
    assert.equal(read.get('old')!.rowsRead, 0, 'the old node stopped before its first block');
    assert.equal(read.get('old')!.unitsDone, 0);
  });

  it('over gRPC: a raise on the coordinator reaches a running remote fragment (RaiseFloor)', async () => {
    const floors = new WatchedFloors();
    const old = await remoteTarget('old', floors.raised, floors);
    const { ns, read } = await headOver({ fresh: localTarget('fresh'), old });
    assert.deepEqual(ns, WANT);
    assert.equal(read.get('old')!.rowsRead, 0, 'the remote old node stopped before its first block');
  });

  it("over gRPC: a remote node's raise comes back in its stream and stops the coordinator's own scan", async () => {
    const remoteFresh = await remoteTarget('fresh', Promise.resolve(), new FragmentFloors());
    const old = localTarget('old');
    const { ns, read } = await headOver({
      fresh: remoteFresh,
      // This node's own fragment starts once the remote one's floor came back.
      old: {
        node: 'old',
        run: async (fragment, call) => {
          await new Promise<void>((resolve) => {
            const floor = call.headFloor!;
            if (floor.current > -Infinity) return resolve();
            const stop = floor.onRaise(() => (stop(), resolve()));
          });
          return old.run(fragment, call);
        },
      },
    });
    assert.deepEqual(ns, WANT);
    assert.equal(read.get('old')!.rowsRead, 0, "the coordinator's own old keys were not read");
  });
});
