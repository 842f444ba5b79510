/**
 * Shard sessions for the coordinator: one per query worker thread (or one in-process session
 * when the pool has no workers). Messages to a worker are answered in order, matched by seq.
 */
import os from 'os';
import path from 'path';
import { Worker } from 'worker_threads';
import type { ChunkScan } from '../../storage/buffer/chunk-read';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import type { QueryPlan } from '../plan/plan';
import type { PayloadCacheCounters } from '../../storage/segment/payload-cache';
import type { QueryWorkerData, SessionSpec, WorkerRequest, WorkerResponse } from './worker-protocol';
import type { TimedRow } from './rows';
import type { BlockInput } from '../../storage/read/block-input';
import { ShardSession, type ShardResult, type UnitAck } from './shard-session';
import { HeldMirror } from './held-blocks';

export interface SessionHandle {
  /**
   * Segment row blocks, processed in order; the ack is the one after the last. `decision`: the
   * held-blocks decision (HeldMirror.decide) that left blocks out of `inputs`, settled once posted.
   */
  blocks(inputs: BlockInput[], decision?: number): Promise<UnitAck>;
  /** The stored blocks the session's worker holds (held-blocks.ts), or null: send every block. */
  heldBlocks(): HeldMirror | null;
  /** Rows of a buffered chunk: decoded (the scan's columns and time range) where the session runs. */
  chunk(chunk: EventChunk, scan: ChunkScan): Promise<UnitAck>;
  preview(limit: number): Promise<TimedRow[]>;
  finish(): Promise<ShardResult>;
  close(): void;
}

/**
 * The memory of the blocks' buffers, to move to the worker instead of copying. Only buffers that
 * span their whole ArrayBuffer qualify (RocksDB hands each value its own); a view into a shared
 * pool would detach the pool. The sender must not touch the buffers afterwards.
 */
function ownedArrayBuffers(inputs: BlockInput[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const input of inputs) {
    for (const buffer of input.buffers) {
      if (buffer === null || !(buffer.buffer instanceof ArrayBuffer)) continue;
      if (buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength) out.add(buffer.buffer);
    }
  }
  return [...out];
}

class LocalHandle implements SessionHandle {
  constructor(private readonly session: ShardSession) {}

  heldBlocks(): HeldMirror | null {
    return null;
  }

  async blocks(inputs: BlockInput[]): Promise<UnitAck> {
    this.session.processBlocks(inputs);
    return this.session.ack();
  }

  async chunk(chunk: EventChunk, scan: ChunkScan): Promise<UnitAck> {
    this.session.processChunk(chunk, scan);
    return this.session.ack();
  }

  async preview(limit: number): Promise<TimedRow[]> {
    return this.session.preview(limit);
  }

  async finish(): Promise<ShardResult> {
    return this.session.finish();
  }

  close(): void {}
}

interface Pending {
  resolve: (response: WorkerResponse) => void;
  reject: (error: Error) => void;
}

class PooledWorker {
  readonly worker: Worker;
  private readonly pending = new Map<string, Pending>();
  sessions = 0;
  retired = false;
  /** The worker's block cache counters, as of its last ack. */
  cache: PayloadCacheCounters = { hits: 0, misses: 0, bytes: 0, entries: 0 };
  /** The stored blocks the worker holds, as its responses so far report them. */
  readonly held = new HeldMirror();
  /** The worker's heap as of its last response. */
  heap = 0;

  constructor(workerData: QueryWorkerData) {
    this.worker = new Worker(path.join(__dirname, '../worker/query-worker.js'), { workerData });
    this.worker.on('message', (response: WorkerResponse) => {
      this.held.apply(response.held);
      if (response.heap !== undefined) this.heap = response.heap;
      if (response.type === 'ack') this.cache = response.cache;
      const key = `${response.session}:${response.seq}`;
      const pending = this.pending.get(key);
      if (pending === undefined) return;
      this.pending.delete(key);
      if (response.type === 'error') pending.reject(new Error(response.message));
      else pending.resolve(response);
    });
    this.worker.on('error', (error) => {
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    });
  }

  request(message: WorkerRequest & { seq: number }, transfer: ArrayBuffer[] = []): Promise<WorkerResponse> {
    return new Promise((resolve, reject) => {
      this.pending.set(`${message.session}:${message.seq}`, { resolve, reject });
      this.worker.postMessage({ ...message, release: this.held.releasePoint() } satisfies WorkerRequest, transfer);
    });
  }

  post(message: WorkerRequest): void {
    this.worker.postMessage({ ...message, release: this.held.releasePoint() } satisfies WorkerRequest);
  }

  /** Rejects what a closed session still waits for. */
  dropSession(session: number): void {
    for (const [key, pending] of this.pending) {
      if (key.startsWith(`${session}:`)) {
        this.pending.delete(key);
        pending.reject(new Error('session closed'));
      }
    }
  }
}

class WorkerHandle implements SessionHandle {
  private seq = 0;
  private closed = false;

  constructor(
    private readonly worker: PooledWorker,
    private readonly session: number,
    private readonly retire: (worker: PooledWorker) => void,
  ) {}

  /** A request sent after a cancel closed the session would never be answered: the scan would wait forever. */
  private checkOpen(): void {
    if (this.closed) throw new Error('session closed');
  }

  private async ack(message: WorkerRequest & { seq: number }, transfer: ArrayBuffer[] = []): Promise<UnitAck> {
    this.checkOpen();
    const response = await this.worker.request(message, transfer);
    if (response.type !== 'ack') throw new Error(`unexpected worker answer ${response.type}`);
    return response.ack;
  }

  heldBlocks(): HeldMirror | null {
    return this.worker.held;
  }

  blocks(inputs: BlockInput[], decision?: number): Promise<UnitAck> {
    // Posted synchronously: once it is, the decision's release point no longer matters.
    const acked = this.ack({ type: 'blocks', session: this.session, seq: ++this.seq, blocks: inputs }, ownedArrayBuffers(inputs));
    if (decision !== undefined) this.worker.held.settle(decision);
    return acked;
  }

  chunk(chunk: EventChunk, scan: ChunkScan): Promise<UnitAck> {
    return this.ack({ type: 'chunk', session: this.session, seq: ++this.seq, chunk, scan });
  }

  async preview(limit: number): Promise<TimedRow[]> {
    this.checkOpen();
    const response = await this.worker.request({ type: 'preview', session: this.session, seq: ++this.seq, limit });
    return response.type === 'preview' ? response.rows : [];
  }

  async finish(): Promise<ShardResult> {
    this.checkOpen();
    const response = await this.worker.request({ type: 'finish', session: this.session, seq: ++this.seq });
    this.release();
    if (response.type !== 'result') throw new Error(`unexpected worker answer ${response.type}`);
    return response.result;
  }

  /**
   * Abandons the session (cancel, failure). Units already posted would still run to the end of
   * their batch, so a worker left with no other session is terminated: the work stops at once.
   */
  close(): void {
    if (this.closed) return;
    this.worker.post({ type: 'close', session: this.session });
    this.worker.dropSession(this.session);
    this.release();
    if (this.worker.sessions === 0) this.retire(this.worker);
  }

  private release(): void {
    if (this.closed) return;
    this.closed = true;
    this.worker.sessions--;
  }
}

/**
 * Query worker threads by default: one per core (at most 8). During a scan the main thread
 * mostly waits for RocksDB reads and hands blocks over, so it needs no core of its own.
 */
export function defaultQueryWorkers(): number {
  return Math.max(1, Math.min(8, os.availableParallelism()));
}

/**
 * The share of a worker's block cache budget for the stored blocks it holds (held-blocks.ts); the
 * rest holds decompressed payloads. Stored blocks are several times smaller than their payloads
 * (figures: docs/benchmarks.md, "Figures behind the constants").
 */
export const HELD_BLOCK_SHARE = 0.25;

export class QueryWorkerPool {
  private readonly workers: PooledWorker[] = [];
  private nextSession = 1;
  /** Hits and misses of workers since retired, so that the pool's totals only grow. */
  private retiredCache = { hits: 0, misses: 0 };

  private readonly workerData: QueryWorkerData;

  /** `blockCacheBytes`: the budget of decompressed blocks (payload-cache.ts), split among the workers. */
  constructor(
    readonly size: number,
    options: { blockCacheBytes?: number } = {},
  ) {
    const perWorker = size === 0 ? 0 : Math.floor((options.blockCacheBytes ?? 0) / size);
    const heldBlockBytes = Math.floor(perWorker * HELD_BLOCK_SHARE);
    this.workerData = { payloadCacheBytes: perWorker - heldBlockBytes, heldBlockBytes };
  }

  /** Starts the workers now, so that the first query does not pay for thread startup (~0.3 s). */
  warm(): void {
    while (this.workers.length < this.size) this.workers.push(new PooledWorker(this.workerData));
  }

  /**
   * Sessions for one query: one per worker (started lazily), at most `limit` of them on the
   * least busy workers, or one in-process.
   */
  open(plan: QueryPlan, spec: SessionSpec, limit = Infinity): SessionHandle[] {
    if (this.size === 0) return [new LocalHandle(new ShardSession(plan, spec))];
    this.warm();
    const chosen =
      limit >= this.workers.length ? this.workers : [...this.workers].sort((a, b) => a.sessions - b.sessions).slice(0, Math.max(1, limit));
    return chosen.map((worker) => {
      const session = this.nextSession++;
      worker.sessions++;
      worker.post({ type: 'open', session, spec });
      return new WorkerHandle(worker, session, (idle) => this.retire(idle));
    });
  }

  /** Terminates a worker (a new one starts for the next query). */
  private retire(worker: PooledWorker): void {
    if (worker.retired) return;
    worker.retired = true;
    this.retiredCache.hits += worker.cache.hits;
    this.retiredCache.misses += worker.cache.misses;
    const position = this.workers.indexOf(worker);
    if (position !== -1) this.workers.splice(position, 1);
    void worker.worker.terminate();
  }

  /** The workers' block caches together: hits and misses so far, bytes and entries held, and the budget. */
  /** The workers' heaps, as of their last responses. */
  heapBytes(): number {
    return this.workers.reduce((sum, worker) => sum + worker.heap, 0);
  }

  blockCacheCounters(): PayloadCacheCounters & { maxBytes: number } {
    const total = {
      ...this.retiredCache,
      bytes: 0,
      entries: 0,
      maxBytes: (this.workerData.payloadCacheBytes + this.workerData.heldBlockBytes) * this.size,
    };
    for (const { cache } of this.workers) {
      total.hits += cache.hits;
      total.misses += cache.misses;
      total.bytes += cache.bytes;
      total.entries += cache.entries;
    }
    return total;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.worker.terminate()));
    this.workers.length = 0;
  }
}
