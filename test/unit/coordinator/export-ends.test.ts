/**
 * The ways an export over several nodes can end, fuzzed: three nodes in this process, each a real
 * storage engine served over real gRPC (ShardQuery), every key on two of them. In each run a node
 * may fail (its storage throws), go away (its gRPC server shuts down) or stall (its reads wait)
 * after some reads, and the client may leave after some rows or the query time out, in random
 * orders and timings. Whatever happens, the export either holds every matching event exactly
 * once, newest first, or fails with one error (for a lost node, only once rows went out: until
 * then its keys are read again elsewhere), and once it has ended no row is handed on and every
 * node has stopped its fragment within a second.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import client from 'prom-client';
import { QuerySlots } from '../../../coordinator/query-slots';
import { scatterGather, ShardLostError, type ClusterView } from '../../../coordinator/scatter-gather';
import { PeerClients } from '../../../node/cluster/grpc/peers';
import { GrpcServer } from '../../../node/cluster/grpc/server';
import { RemoteShardTarget } from '../../../node/cluster/remote-shard-target';
import { ShardQueryMetrics } from '../../../node/cluster/shard-query-metrics';
import { addShardQueryService } from '../../../node/cluster/shard-query-service';
import { localScanSource } from '../../../node/core/local-scan-source';
import type { ScanSource } from '../../../query/exec/execute';
import { QueryLimitError } from '../../../query/exec/limits';
import type { TimedRow } from '../../../query/exec/rows';
import { QueryWorkerPool } from '../../../query/exec/session-pool';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { fnv1a32, keyString } from '../../../storage/core/partition';
import { waitUntil } from '../../helpers/api';
import { fuzzRuns } from '../../helpers/fuzz';
import { engineHolding } from '../../helpers/engine';
import { sessionSpec } from '../../helpers/query-run';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 4 };
const NODES = ['a', 'b', 'c'];
/**
 * How long a fragment may send nothing before its node counts as failed (cluster.failure_timeout):
 * long enough that a loaded machine does not fail a healthy node (a stalled node here still sends
 * its progress; the query's time limit ends it).
 */
const SILENCE_MS = 5000;

/** 8,000 events, one every 3 s: almost seven hours, 28 keys, a segment each. */
const EVENTS: LogEvent[] = Array.from({ length: 8000 }, (_, i) => ({
  time: BASE + i * 3_000_000,
  raw: `line ${i}`,
  index: 'main',
  fields: { host: `h${i % 5}`, source: 'gen', n: i },
}));
/** Each match hashed over and over: a node streams for a second or more, so an end comes while the others still scan. */
const TEXT = `from main | where n % 2 = 0 | extend h0 = _raw, ${Array.from({ length: 60 }, (_, i) => `h${i + 1} = sha256(concat(h${i}, _raw))`).join(', ')} | keep n`;
/** The whole export from the test's own data: the time of every match (each event's own), newest first. */
const WANT = EVENTS.filter((event) => (event.fields.n as number) % 2 === 0)
  .map((event) => event.time)
  .sort((x, y) => y - x);
const WANTED = new Set(WANT);
const SPEC = {
  ...sessionSpec(TEXT, { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR }),
  stream: true,
  limit: Number.MAX_SAFE_INTEGER,
};
const chunks = chunkEvents(EVENTS, PLACEMENT);
const keys = [...new Set(chunks.map((chunk) => keyString(chunk.key)))];

/** Two owners of each key, from a hash of it (a stand-in ring, fixed for the test). */
function ownersOf(key: string): string[] {
  const first = fnv1a32(key) % NODES.length;
  return [NODES[first]!, NODES[(first + 1) % NODES.length]!];
}

type NodeFault = { kind: 'none' } | { kind: 'fail' | 'gone' | 'stall'; afterReads: number };
type ClientEnd = { kind: 'none' } | { kind: 'leave'; afterRows: number } | { kind: 'timeout'; afterMs: number };

/** One node served over gRPC for one run, with its fault. */
interface ServedNode {
  server: GrpcServer;
  slots: QuerySlots;
  address: string;
  /** Lets a stalled read go on. */
  unstall(): void;
  /** Shuts the server down (once). */
  close(): Promise<void>;
}

describe('an export over several nodes ends whole or with one error, whatever fails when', function () {
  this.timeout(300_000);
  let pool: QueryWorkerPool;
  const engines = new Map<string, StorageEngine>();
  const peers = new PeerClients(100);

  before(async () => {
    pool = new QueryWorkerPool(2);
    for (const node of NODES) {
      // Small segments: many reads, so a fault after a few of them falls in the middle of the stream.
      const held = chunks.filter((chunk) => ownersOf(keyString(chunk.key)).includes(node));
      engines.set(node, await engineHolding(held, { placement: PLACEMENT, segmentMaxEvents: 50 }));
    }
  });

  after(async () => {
    peers.close();
    await pool.close();
    for (const engine of engines.values()) await engine.close().catch(() => undefined);
  });

  /** The node's storage, with its fault after `afterReads` block reads. */
  function faulty(source: ScanSource, fault: NodeFault, gone: () => void, stalled: Promise<void>): ScanSource {
    let reads = 0;
    const readSegmentBlocks: ScanSource['readSegmentBlocks'] = async (reads_) => {
      if (fault.kind !== 'none' && reads++ >= fault.afterReads) {
        if (fault.kind === 'fail') throw new Error('the disk failed');
        if (fault.kind === 'gone') gone();
        await stalled;
      }
      return source.readSegmentBlocks(reads_);
    };
    return Object.assign(Object.create(source) as ScanSource, { readSegmentBlocks });
  }

  async function serve(node: string, fault: NodeFault): Promise<ServedNode> {
    const server = new GrpcServer();
    const slots = new QuerySlots(() => 10);
    let unstall: () => void = () => undefined;
    const stalled = new Promise<void>((resolve) => (unstall = resolve));
    const engine = engines.get(node)!;
    let closing: Promise<void> | null = null;
    const close = (): Promise<void> => (closing ??= server.close(0));
    addShardQueryService(
      server,
      {
        engine,
        source: faulty(localScanSource(engine), fault, () => void close(), stalled),
        workers: pool,
        fragment: { maxQueryMemoryBytes: () => 1e9, pool: null, heldIndexes: () => engine.heldIndexNames() },
        slots,
        maxQueryRuntimeMs: () => 60_000,
        metrics: new ShardQueryMetrics(new client.Registry()),
      },
      () => undefined,
    );
    const port = await server.listen('127.0.0.1:0');
    return { server, slots, address: `127.0.0.1:${port}`, unstall, close };
  }

  const nodeFault: fc.Arbitrary<NodeFault> = fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constantFrom('fail' as const, 'gone' as const, 'stall' as const),
        afterReads: fc.integer({ min: 0, max: 8 }),
      }),
    },
  );
  const clientEnd: fc.Arbitrary<ClientEnd> = fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc.record({ kind: fc.constant('leave' as const), afterRows: fc.integer({ min: 0, max: WANT.length }) }),
    fc.record({ kind: fc.constant('timeout' as const), afterMs: fc.integer({ min: 0, max: 1500 }) }),
  );

  it('holds every event exactly once or fails with one error; no row after the end, every fragment stopped within a second', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(nodeFault, nodeFault, nodeFault),
        clientEnd,
        fc.integer({ min: 0, max: 3 }),
        async (faults, end, slowWrites) => {
          const served = new Map<string, ServedNode>();
          for (const [i, node] of NODES.entries()) served.set(node, await serve(node, faults[i]!));
          // Far beyond any run's need: reaching it fails the property (a limit nobody set), so a loaded machine must not.
          const deadlineMs = Date.now() + 60_000;
          const view: ClusterView = {
            owners: ownersOf,
            usable: () => true,
            target: (node) => new RemoteShardTarget(node, served.get(node)!.address, peers, deadlineMs, SILENCE_MS),
          };
          const controller = new AbortController();
          // A stalled node with no client end: the query's runtime limit ends it.
          const stalls = faults.some((fault) => fault.kind === 'stall');
          const timeoutMs = end.kind === 'timeout' ? end.afterMs : stalls ? 3000 : null;
          const timer =
            timeoutMs === null
              ? null
              : setTimeout(() => controller.abort(new QueryLimitError('QUERY_TIMEOUT', 'the query ran too long')), timeoutMs);
          const streamed: number[] = [];
          let ended = false;
          let lateRows = 0;
          const onRows = async (rows: TimedRow[]): Promise<void> => {
            if (ended) lateRows += rows.length;
            for (const { time } of rows) {
              streamed.push(time);
              if (end.kind === 'leave' && streamed.length === end.afterRows)
                controller.abort(new QueryLimitError('QUERY_CANCELED', 'the client disconnected'));
            }
            // A client that reads slowly now and then.
            if (slowWrites > 0 && streamed.length % 500 < rows.length) await new Promise((resolve) => setTimeout(resolve, slowWrites));
          };
          let outcome: { missing: number } | Error;
          try {
            outcome = await scatterGather(view, SPEC, keys, controller.signal, onRows);
          } catch (error) {
            outcome = error as Error;
          } finally {
            ended = true;
            if (timer !== null) clearTimeout(timer);
          }
          const endedAt = Date.now();
          for (const node of served.values()) node.unstall();
          try {
            // Every node's fragment stops soon after the export ends (the caller's cancel or a closed connection).
            await waitUntil(() => [...served.values()].every((node) => node.slots.running === 0), 1000, 'every node to stop its fragment');
            assert.ok(Date.now() - endedAt <= 1500, `the fragments stopped ${Date.now() - endedAt} ms after the export ended`);
            assert.equal(lateRows, 0, 'rows handed on after the export ended');
            assert.equal(new Set(streamed).size, streamed.length, 'an event streamed twice');
            for (let i = 1; i < streamed.length; i++) assert.ok(streamed[i - 1]! > streamed[i]!, 'the export is newest first');
            const aborted = end.kind !== 'none' || stalls;
            if (outcome instanceof Error) {
              assert.ok(outcome instanceof ShardLostError || outcome instanceof QueryLimitError, `unexpected failure: ${outcome.stack}`);
              if (outcome instanceof QueryLimitError) assert.ok(aborted, `a limit nobody set: ${outcome.message}`);
              // A node none of whose rows went out is read again elsewhere: an export fails for a lost node only after rows went out.
              if (outcome instanceof ShardLostError) {
                assert.ok(
                  faults.some((fault) => fault.kind !== 'none' && fault.afterReads > 0),
                  outcome.message,
                );
                assert.ok(streamed.length > 0, `nothing went out, yet the export failed: ${outcome.message}`);
              }
            } else if (outcome.missing === 0) {
              assert.deepEqual(streamed, WANT);
            } else {
              // Both owners of some key failed: the rest is there, and the answer says what is missing.
              assert.ok(faults.filter((fault) => fault.kind !== 'none').length >= 2);
              assert.ok(streamed.every((time) => WANTED.has(time)));
            }
            if (
              faults.every((fault) => fault.kind === 'none' || fault.afterReads === 0) &&
              faults.filter((fault) => fault.kind !== 'none').length <= 1 &&
              !aborted
            ) {
              assert.ok(!(outcome instanceof Error), `one node failed before it sent a row: the export is whole (${String(outcome)})`);
              assert.deepEqual(streamed, WANT);
            }
          } finally {
            for (const node of served.values()) await node.close();
          }
        },
      ),
      { numRuns: fuzzRuns(15), seed: Number(process.env.FC_SEED ?? Date.now() % 1_000_000), endOnFailure: true },
    );
  });
});
