/**
 * A small pool of codec workers (see codec-worker.ts). Requests go to the least busy worker;
 * with `size` 0 everything runs in-process (tests, tiny deployments).
 */
import os from 'os';
import path from 'path';
import { Worker } from 'worker_threads';
import type { CodecRequest, CodecResponse, CodecResult, MergeInput } from './codec-worker';
import { runCodecRequest } from './codec-worker';
import type { ChunkPiece } from './event-chunk';
import type { EncodeSegmentOptions } from './segment/segment-encoder';

interface Pending {
  resolve: (result: CodecResult) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  busy: number;
}

/** Workers by default: one per core beyond the main thread's, at least one. */
export function defaultCodecWorkers(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

export class CodecPool {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending & { worker: PoolWorker }>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly size: number) {}

  /** Encodes chunk rows as one segment (the chunks are copied to the worker: the memtable keeps reading them). */
  encode(pieces: ChunkPiece[], options: EncodeSegmentOptions): Promise<CodecResult> {
    return this.run({ id: 0, type: 'encode', pieces, options });
  }

  merge(inputs: MergeInput[], options: EncodeSegmentOptions): Promise<CodecResult> {
    return this.run({ id: 0, type: 'merge', inputs, options });
  }

  private run(request: CodecRequest): Promise<CodecResult> {
    if (this.closed) return Promise.reject(new Error('codec pool is closed'));
    if (this.size === 0) {
      try {
        return Promise.resolve(runCodecRequest(request));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    const target = this.pickWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: target });
      target.busy++;
      target.worker.postMessage({ ...request, id });
    });
  }

  private pickWorker(): PoolWorker {
    if (this.workers.length < this.size) {
      const worker = new Worker(path.join(__dirname, 'codec-worker.js'));
      const entry: PoolWorker = { worker, busy: 0 };
      worker.on('message', (response: CodecResponse) => this.settle(response));
      worker.on('error', (error) => this.failWorker(entry, error));
      this.workers.push(entry);
      return entry;
    }
    return this.workers.reduce((best, current) => (current.busy < best.busy ? current : best));
  }

  private settle(response: CodecResponse): void {
    const pending = this.pending.get(response.id);
    if (pending === undefined) return;
    this.pending.delete(response.id);
    pending.worker.busy--;
    if (!response.ok) {
      pending.reject(new Error(response.error));
      return;
    }
    // Transferred buffers arrive as plain Uint8Arrays: give them Buffer views again.
    const result = response.result;
    result.blockData = result.blockData.map((blocks) => blocks.map((block) => toBuffer(block)));
    result.blooms = result.blooms.map((bloom) => toBuffer(bloom));
    pending.resolve(result);
  }

  private failWorker(entry: PoolWorker, error: Error): void {
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
    await Promise.all(this.workers.map((entry) => entry.worker.terminate()));
    this.workers.length = 0;
  }
}

function toBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
