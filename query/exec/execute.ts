/**
 * Runs a plan. The coordinator side (this file, on the main thread) plans the scan, reads
 * compressed blocks from storage and hands them to shard sessions in query worker threads,
 * newest units first, stopping early once a `head` is satisfied; then it merges what the
 * sessions produced and runs the coordinator stages (result.ts).
 */
import type { EventChunk } from '../../storage/buffer/event-chunk';
import type { BufferedUnit, ScanPlan, ScanRequest, ScanStats, SegmentUnit } from '../../storage/scan';
import { storedColumnsToRead } from '../../storage/scan';
import type { QueryPlan } from '../plan/plan';
import { checkAlive, type MemoryBudget } from './limits';
import { scanRequestOf } from './scan-request';
import { QueryProgress } from './progress';
import { finishResult, type QueryResultData } from './result';
import type { TimedRow } from './rows';
import type { SessionSpec } from './worker-protocol';
import type { QueryWorkerPool, SessionHandle } from './session-pool';
import { expandHeldReads, planHeldReads, type HeldPlan } from './held-blocks';
import { HeadFloor } from './head-floor';
import type { BlockInput } from '../../storage/read/block-input';
import { ShardSession, type OpStats, type ShardResult, type UnitAck } from './shard-session';
import { mergeShardResults } from './shard-results';
import { StreamOrder } from './stream-order';
import { countIntervals, intervalCountStep } from './interval-counts';

export type { OpStats };

/** The stored columns of one row block, to read. */
export interface SegmentBlockRead {
  unit: SegmentUnit;
  block: number;
  stored: string[];
  /** The `_raw` frames that may match (null: all). */
  rawFrames: number[] | null;
  /** Per entry of `rawFrames`: a raw token only the frame's skeletons can hold, or -1 (scan.ts SegmentUnit). */
  rawOwnTokens: number[] | null;
}

/** What the executor needs from storage. */
export interface ScanSource {
  planScan(request: ScanRequest, trace: boolean): Promise<ScanPlan>;
  /** The compressed buffers of the `stored` columns of several row blocks (null: column absent). */
  readSegmentBlocks(reads: readonly SegmentBlockRead[]): Promise<(Buffer | null)[][]>;
  /** A buffered unit's chunk (null when none of its rows is in range), counting the rows read. */
  readBufferedChunk(unit: BufferedUnit, request: ScanRequest, stats: ScanStats): EventChunk | null;
  releasePlan(plan: ScanPlan): void;
}

export interface ExecuteOptions {
  limit: number;
  offset: number;
  signal: AbortSignal;
  budget: MemoryBudget;
  progress: QueryProgress;
  pool: QueryWorkerPool;
  /** How sessions rebuild the plan in a worker. */
  spec: SessionSpec;
  /**
   * Streaming export: events go here, newest first, as sessions find them, instead of being
   * collected; `bound`: no row handed over later is newer (for a merge of several nodes' streams).
   */
  onRows?: (rows: TimedRow[], bound: number) => Promise<void>;
  /** Newest rows so far (about once a second), for job previews. */
  onPreview?: (rows: TimedRow[]) => void;
  /** Only these partition keys (storage keyString), as a coordinator asks a node for; all when absent. */
  keys?: ReadonlySet<string>;
  /** A `head`'s floor shared with the query's other shards (head-floor.ts); this scan's own otherwise. */
  headFloor?: HeadFloor;
}

type WorkUnit =
  | {
      kind: 'segment';
      unit: SegmentUnit;
      block: number;
      rawFrames: number[] | null;
      rawOwnTokens: number[] | null;
      minTime: number;
      maxTime: number;
    }
  | { kind: 'buffered'; unit: BufferedUnit; maxTime: number };

/** What one session message carries: consecutive segment blocks, or one buffered unit. */
type WorkGroup =
  { kind: 'segment'; reads: SegmentBlockRead[]; maxTime: number } | { kind: 'buffered'; unit: BufferedUnit; maxTime: number };

/** Units newest first: the default order, and what makes head pushdown stop early. */
function workUnits(plan: ScanPlan): WorkUnit[] {
  const units: WorkUnit[] = [];
  for (const unit of plan.segments) {
    unit.blocks.forEach((block, i) => {
      const rawFrames = unit.rawFrames?.[i] ?? null;
      const rawOwnTokens = unit.rawOwnTokens?.[i] ?? null;
      const { minTime, maxTime } = unit.header.blocks[block];
      units.push({ kind: 'segment', unit, block, rawFrames, rawOwnTokens, minTime, maxTime });
    });
  }
  for (const unit of plan.buffered) units.push({ kind: 'buffered', unit, maxTime: unit.maxTime });
  return units.sort((a, b) => b.maxTime - a.maxTime);
}

/**
 * Blocks per message: one message (and one RocksDB multi-get) per block costs more than decoding
 * a small column block, so small blocks travel in groups. Large blocks (`_raw`) go a few at a
 * time, so that a scan of few blocks still spreads over every session.
 */
const MAX_BLOCKS_PER_MESSAGE = 16;
const MAX_BYTES_PER_MESSAGE = 1024 * 1024;

/** Compressed bytes of some columns of one row block, estimated from the segment's totals. */
function estimatedBytes(unit: SegmentUnit, stored: readonly string[]): number {
  let bytes = 0;
  for (const column of unit.header.columns) if (stored.includes(column.name)) bytes += column.bytes;
  return bytes / Math.max(1, unit.header.blocks.length);
}

/**
 * Groups the units into messages, keeping their order. A head (`head`) stops as soon as it holds
 * its rows, so a block joins a message only while its rows overlap the message's first block in
 * time: the first block alone cannot raise the floor above them, so it would be read all the same
 * (the newest blocks of a node's partitions, side by side in time, go in one message instead of
 * one round trip each), while blocks wholly older wait for the floor.
 */
function workGroups(units: WorkUnit[], request: ScanRequest, head: boolean): WorkGroup[] {
  const groups: WorkGroup[] = [];
  let open: { group: Extract<WorkGroup, { kind: 'segment' }>; bytes: number; minTime: number } | null = null;
  for (const work of units) {
    if (work.kind === 'buffered') {
      open = null;
      groups.push(work);
      continue;
    }
    const stored = storedColumnsToRead(work.unit.header, work.block, request);
    const bytes = estimatedBytes(work.unit, stored);
    if (
      open === null ||
      (head && work.maxTime <= open.minTime) ||
      open.group.reads.length >= MAX_BLOCKS_PER_MESSAGE ||
      open.bytes + bytes > MAX_BYTES_PER_MESSAGE
    ) {
      open = { group: { kind: 'segment', reads: [], maxTime: work.maxTime }, bytes: 0, minTime: work.minTime };
      groups.push(open.group);
    }
    open.group.reads.push({ unit: work.unit, block: work.block, stored, rawFrames: work.rawFrames, rawOwnTokens: work.rawOwnTokens });
    open.bytes += bytes;
  }
  return groups;
}

/** A group's read: which stored blocks it leaves out (held by the worker) and the buffers read. */
interface PlannedRead {
  plan: HeldPlan;
  buffers: Promise<(Buffer | null)[][]>;
}

/** Messages a session may have in flight: enough to overlap reads with decoding, little enough to stop early. */
const IN_FLIGHT_PER_SESSION = 2;

/** Export rows queued for the client beyond which the scan waits for the client to read. */
const MAX_STREAM_BACKLOG_ROWS = 50_000;

class SessionSlot {
  inFlight: Promise<void>[] = [];
  last: UnitAck | null = null;
  memoryCharged = 0;

  constructor(readonly handle: SessionHandle) {}
}

/** Runs a plan over this node's storage and finishes the answer. */
export async function executePlan(
  source: ScanSource,
  plan: QueryPlan,
  options: ExecuteOptions,
): Promise<{ data: QueryResultData; opStats: OpStats[] }> {
  const output = mergeShardResults(await scanShards(source, plan, options), plan, options);
  return { data: finishResult(plan, output, options), opStats: output.opStats };
}

/**
 * The shard part of a plan over this node's storage (the keys `options.keys` names, or all):
 * each query worker session's result, for the coordinator to merge (shard-results.ts).
 */
export async function scanShards(source: ScanSource, plan: QueryPlan, options: ExecuteOptions): Promise<ShardResult[]> {
  const { progress, signal, budget } = options;
  const request = options.keys === undefined ? scanRequestOf(plan) : { ...scanRequestOf(plan), keys: options.keys };
  progress.phase = 'planning';
  const scanPlan = await source.planScan(request, options.spec.trace);
  progress.attach(scanPlan.stats);
  const intervalStep = intervalCountStep(plan);
  if (intervalStep !== null && options.onRows === undefined) {
    try {
      progress.phase = 'scanning';
      return [await countIntervals((reads) => source.readSegmentBlocks(reads), scanPlan, request, intervalStep, plan)];
    } finally {
      source.releasePlan(scanPlan);
    }
  }
  const boundary = plan.boundary;
  if (scanPlan.segments.length === 0 && scanPlan.buffered.length === 0 && options.onRows === undefined) {
    // Nothing to read (every segment pruned, as a rare term's blooms often leave it): the empty
    // answer is made here, without handing worker sessions a query to plan and finish.
    progress.phase = 'merging';
    source.releasePlan(scanPlan);
    return [new ShardSession(plan, options.spec).finish()];
  }
  // A head reads a block or two and each session must fill the whole head: one session is fastest.
  const slots = options.pool.open(plan, options.spec, boundary.kind === 'head' ? 1 : Infinity).map((handle) => new SessionSlot(handle));
  // Cancel or timeout: stop the sessions now, not after the units in flight finish.
  const abort = (): void => slots.forEach((slot) => slot.handle.close());
  signal.addEventListener('abort', abort, { once: true });
  let bufferedRowsRead = 0;
  let streamChain: Promise<void> = Promise.resolve();
  /** Streamed rows handed to onRows and not yet written (the scan waits when the client is slow). */
  let streamBacklog = 0;
  let order: StreamOrder | null = null;
  const refreshRowsRead = (): void => {
    scanPlan.stats.rowsRead = bufferedRowsRead + slots.reduce((sum, slot) => sum + (slot.last?.rowsRead ?? 0), 0);
    scanPlan.stats.blocksCached = slots.reduce((sum, slot) => sum + (slot.last?.blocksCached ?? 0), 0);
  };
  /** Export mode: group g answered with `rows`; what the order releases goes to onRows. */
  let sentBound = Infinity;
  const stream = (g: number, rows: TimedRow[]): void => {
    if (order === null || options.onRows === undefined) return;
    const ready = order.answer(g, rows);
    const bound = order.bound;
    // A lower bound alone is news too: a merge of several nodes' streams waits for it.
    if (ready.length === 0 && bound === sentBound) return;
    sentBound = bound;
    const write = options.onRows;
    streamBacklog += ready.length;
    streamChain = streamChain.then(async () => {
      await write(ready, bound);
      streamBacklog -= ready.length;
    });
  };
  const headFloor = options.headFloor ?? new HeadFloor();
  const onAck = (slot: SessionSlot, g: number, ack: UnitAck): void => {
    slot.last = ack;
    // Once a session holds N rows, the N-th newest is a floor for every scan of the query.
    if (boundary.kind === 'head' && ack.full) headFloor.raise(ack.minTime);
    refreshRowsRead();
    if (ack.memoryBytes > slot.memoryCharged) {
      budget.charge(ack.memoryBytes - slot.memoryCharged);
      slot.memoryCharged = ack.memoryBytes;
    }
    stream(g, ack.rows ?? []);
  };
  let results: ShardResult[];
  /** Reads whose held-blocks decision is not settled yet: settled when sent, or at the end. */
  const unsent = new Set<PlannedRead>();
  // In-flight units never reject: the first failure is kept here and rethrown by the loop.
  let failure: unknown = null;
  const rethrow = (): void => {
    if (failure !== null) throw failure;
  };
  try {
    progress.phase = 'scanning';
    const units = workUnits(scanPlan);
    progress.unitsTotal = units.length;
    const groups = workGroups(units, request, boundary.kind === 'head');
    if (options.onRows !== undefined) order = new StreamOrder(groups.map((group) => group.maxTime));
    // A head stops as soon as it is satisfied: read ahead by one unit only.
    const depth = boundary.kind === 'head' ? 1 : IN_FLIGHT_PER_SESSION;
    // Group g goes to session g % sessions: its read leaves out the stored blocks that session's worker holds.
    const slotOf = (g: number): SessionSlot => slots[g % slots.length];
    const startRead = (g: number): PlannedRead | null => {
      const group = groups[g];
      if (group === undefined || group.kind !== 'segment') return null;
      const plan = planHeldReads(
        slotOf(g).handle.heldBlocks(),
        group.reads.map((read) => ({ segment: read.unit.header.id, block: read.block, stored: read.stored })),
      );
      const reads = group.reads.map((read, i) => (plan.held[i].length === 0 ? read : { ...read, stored: plan.toRead[i] }));
      const buffers = source.readSegmentBlocks(reads).then((read) => expandHeldReads(plan, read));
      // Awaited below unless the scan stops first; an abandoned read must not go unhandled.
      buffers.catch(() => undefined);
      const planned = { plan, buffers };
      if (plan.decision !== null) unsent.add(planned);
      return planned;
    };
    let lastPreview = performance.now();
    let reading = startRead(0);
    for (let g = 0; g < groups.length; g++) {
      const work = groups[g];
      checkAlive(signal);
      rethrow();
      // Once the query holds N rows newer than this unit's newest, the unit cannot change the answer.
      if (boundary.kind === 'head' && work.maxTime <= headFloor.current) break;
      const slot = slotOf(g);
      if (slot.inFlight.length >= depth) {
        await slot.inFlight.shift();
        // The unit it waited for may have raised the floor.
        if (boundary.kind === 'head' && work.maxTime <= headFloor.current) break;
      }
      // A slow export client holds the scan back rather than piling rows up in memory.
      if (streamBacklog > MAX_STREAM_BACKLOG_ROWS) await streamChain;
      let sent: Promise<UnitAck>;
      if (work.kind === 'segment') {
        if (boundary.kind === 'head' && reading === null) {
          // Blocks of the message that the floor passed since it was formed are left out (its first one is newer).
          const floor = headFloor.current;
          work.reads = work.reads.filter((read) => read.unit.header.blocks[read.block].maxTime > floor);
        }
        const current = reading ?? (startRead(g) as PlannedRead);
        const buffers = await current.buffers;
        // Other queries: the next group's read overlaps this one's processing.
        reading = boundary.kind === 'head' ? null : startRead(g + 1);
        const inputs: BlockInput[] = work.reads.map((read, i) => {
          for (const buffer of buffers[i]) scanPlan.stats.bytesRead += buffer?.length ?? 0;
          const rows = read.unit.header.blocks[read.block].rows;
          const held = current.plan.held[i];
          return {
            index: read.unit.header.index,
            segment: read.unit.header.id,
            block: read.block,
            rows,
            stored: read.stored,
            buffers: buffers[i],
            rawFrames: read.rawFrames,
            rawOwnTokens: read.rawOwnTokens,
            ...(held.length > 0 ? { held } : {}),
          };
        });
        unsent.delete(current);
        sent = slot.handle.blocks(inputs, current.plan.decision?.token);
      } else {
        reading = boundary.kind === 'head' ? null : startRead(g + 1);
        const before = scanPlan.stats.rowsRead;
        const chunk = source.readBufferedChunk(work.unit, request, scanPlan.stats);
        bufferedRowsRead += scanPlan.stats.rowsRead - before;
        if (chunk === null) {
          progress.unitsDone++;
          stream(g, []);
          continue;
        }
        // The chunk goes as it is (typed arrays, one buffer): the session decodes what it reads.
        sent = slot.handle.chunk(chunk, { fromMicros: request.fromMicros, toMicros: request.toMicros, columns: request.columns });
      }
      const unitsInGroup = work.kind === 'segment' ? work.reads.length : 1;
      slot.inFlight.push(
        sent.then(
          (ack) => {
            progress.unitsDone += unitsInGroup;
            onAck(slot, g, ack);
          },
          (error: unknown) => {
            failure ??= error;
          },
        ),
      );
      if (options.onPreview !== undefined && performance.now() - lastPreview > 1000) {
        lastPreview = performance.now();
        const onPreview = options.onPreview;
        void Promise.all(slots.map((s) => s.handle.preview(100)))
          .then((lists) =>
            onPreview(
              lists
                .flat()
                .sort((a, b) => b.time - a.time)
                .slice(0, 100),
            ),
          )
          .catch(() => undefined);
      }
    }
    for (const slot of slots) await Promise.all(slot.inFlight);
    checkAlive(signal);
    rethrow();
    await streamChain;
    progress.phase = 'merging';
    results = await Promise.all(slots.map((slot) => slot.handle.finish()));
  } catch (error) {
    for (const slot of slots) slot.handle.close();
    // A canceled query reports its cancellation, not the closed sessions it caused.
    checkAlive(signal);
    throw error;
  } finally {
    for (const { plan } of unsent) plan.decision?.mirror.settle(plan.decision.token);
    signal.removeEventListener('abort', abort);
    source.releasePlan(scanPlan);
  }
  return results;
}
