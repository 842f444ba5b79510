/**
 * A small pool of worker threads that answer requests by id: each request goes to an idle worker
 * (or the least busy one once `size` have started), and a worker that dies fails only its own
 * requests. The codec pool (segment encoding) and the ingest parser (node/) are built on it.
 *
 * A worker left without a request for `idleStopMs` is stopped, and started again by the next
 * request: a thread that parsed or encoded a burst keeps a heap of the burst's size (its young
 * generation alone may be 192 MB) that V8 does not give back while the thread sleeps.
 */
import { Worker, type ResourceLimits, type TransferListItem } from 'worker_threads';

/** What a worker posts back: the id of the request it answers, and its heap (thread-memory.ts). */
export interface PoolResponse {
  id: number;
  heap?: number;
}

export interface WorkerPoolOptions {
  /** The workers alone do not keep the process alive. */
  unref?: boolean;
  /** Handed to each worker at start. */
  workerData?: unknown;
  /** V8 heap limits of each worker (worker_threads ResourceLimits). */
  resourceLimits?: ResourceLimits;
  /** Stop a worker idle this long (it starts again on demand); absent: workers live as long as the pool. */
  idleStopMs?: number;
}

/** How long an ingest or codec worker may sit idle before it is stopped (docs/benchmarks.md, "Figures behind the constants"). */
export const IDLE_WORKER_STOP_MS = 30_000;

/**
 * A young generation for workers that turn multi-megabyte bodies into objects at once (a JSON
 * array of 10,000 events is ~25 MB of them): with V8's default (16 MB semi-spaces) they outlive a
 * scavenge, get promoted and cost old-generation marking. 192 MB is 64 MB semi-spaces (V8 sizes
 * the young generation at three semi-spaces). With the equivalent server flag, the ingest
 * bench's summed thread CPU fell in 5 of 5 alternating pairs; its whole-run CPU per event moved
 * within the machine's noise.
 */
export const BULK_YOUNG_GENERATION_MB = 192;

interface PoolWorker {
  worker: Worker;
  busy: number;
  /** Stops the worker once it has been idle `idleStopMs`; null while it works. */
  idleTimer: NodeJS.Timeout | null;
  /** The worker's heap as of its last response. */
  heap: number;
}

interface Pending<R> {
  resolve: (response: R) => void;
  reject: (error: Error) => void;
  worker: PoolWorker;
}

export class WorkerPool<R extends PoolResponse> {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending<R>>();
  private nextId = 1;
  closed = false;
  /** Workers stopped for idleness since the pool started. */
  idleStops = 0;

  constructor(
    private readonly script: string,
    readonly size: number,
    private readonly options: WorkerPoolOptions = {},
  ) {}

  /** Starts every worker now, so that the first request does not pay for thread startup. */
  warm(): void {
    while (!this.closed && this.workers.length < this.size) this.start();
  }

  /** Posts `message` with a fresh `id` and resolves with the worker's response to it. */
  request(message: Record<string, unknown>, transfer: readonly TransferListItem[] = []): Promise<R> {
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    const target = this.pick();
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: target });
      target.busy++;
      if (target.idleTimer !== null) clearTimeout(target.idleTimer);
      target.idleTimer = null;
      target.worker.postMessage({ ...message, id }, transfer);
    });
  }

  private start(): PoolWorker {
    const { workerData, resourceLimits } = this.options;
    const entry: PoolWorker = { worker: new Worker(this.script, { workerData, resourceLimits }), busy: 0, idleTimer: null, heap: 0 };
    entry.worker.on('message', (response: R) => this.settle(response));
    entry.worker.on('error', (error) => this.fail(entry, error));
    if (this.options.unref === true) entry.worker.unref();
    this.workers.push(entry);
    return entry;
  }

  private pick(): PoolWorker {
    const idle = this.workers.find((entry) => entry.busy === 0);
    if (idle !== undefined) return idle;
    if (this.workers.length < this.size) return this.start();
    return this.workers.reduce((best, current) => (current.busy < best.busy ? current : best));
  }

  private settle(response: R): void {
    const pending = this.pending.get(response.id);
    if (pending === undefined) return;
    this.pending.delete(response.id);
    pending.worker.busy--;
    if (response.heap !== undefined) pending.worker.heap = response.heap;
    if (pending.worker.busy === 0) this.stopWhenIdle(pending.worker);
    pending.resolve(response);
  }

  /** Arms the idle stop of a worker that has just finished its last request. */
  private stopWhenIdle(entry: PoolWorker): void {
    const { idleStopMs } = this.options;
    if (idleStopMs === undefined) return;
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = null;
      if (entry.busy > 0 || this.closed) return;
      const position = this.workers.indexOf(entry);
      if (position === -1) return;
      this.workers.splice(position, 1);
      this.idleStops++;
      void entry.worker.terminate();
    }, idleStopMs);
    entry.idleTimer.unref();
  }

  /** The heaps of the running workers, as of their last responses. */
  get heapBytes(): number {
    return this.workers.reduce((sum, entry) => sum + entry.heap, 0);
  }

  /** Workers running now. */
  get running(): number {
    return this.workers.length;
  }

  private fail(entry: PoolWorker, error: Error): void {
    for (const [id, pending] of this.pending) {
      if (pending.worker === entry) {
        this.pending.delete(id);
        pending.reject(error);
      }
    }
    const position = this.workers.indexOf(entry);
    if (position !== -1) this.workers.splice(position, 1);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.workers) if (entry.idleTimer !== null) clearTimeout(entry.idleTimer);
    await Promise.all(this.workers.map((entry) => entry.worker.terminate()));
    this.workers.length = 0;
  }
}
