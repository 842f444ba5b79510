/**
 * The codec workers (see codec-worker.ts) on a WorkerPool; with `size` 0 everything runs
 * in-process (tests, tiny deployments).
 */
import os from 'os';
import path from 'path';
import type { CodecRequest, CodecResponse, CodecResult, CodecWorkerData, MergeInput } from './codec-worker';
import { BULK_YOUNG_GENERATION_MB, IDLE_WORKER_STOP_MS, WorkerPool } from './worker-pool';
import { runCodecRequest } from './codec-worker';
import type { ChunkPiece } from '../buffer/event-chunk';
import type { EncodeSegmentOptions } from '../segment/segment-encoder';

/** Workers by default: one per core beyond the main thread's, at least one. */
export function defaultCodecWorkers(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

export class CodecPool {
  private readonly workers: WorkerPool<CodecResponse>;

  /**
   * `background`: the workers run at a lower CPU priority (thread-priority.ts), for compaction,
   * so that ingest's parsing and flushing come first when the cores are busy.
   */
  constructor(
    private readonly size: number,
    background = false,
  ) {
    const workerData: CodecWorkerData = { background };
    this.workers = new WorkerPool<CodecResponse>(path.join(__dirname, 'codec-worker.js'), size, {
      workerData,
      resourceLimits: { maxYoungGenerationSizeMb: BULK_YOUNG_GENERATION_MB },
      idleStopMs: IDLE_WORKER_STOP_MS,
    });
  }

  /** Encodes chunk rows as one segment (chunks in SharedArrayBuffers are shared with the worker, not copied). */
  encode(pieces: ChunkPiece[], options: EncodeSegmentOptions): Promise<CodecResult> {
    return this.run({ id: 0, type: 'encode', pieces, options });
  }

  merge(inputs: MergeInput[], options: EncodeSegmentOptions): Promise<CodecResult> {
    return this.run({ id: 0, type: 'merge', inputs, options });
  }

  private async run(request: CodecRequest): Promise<CodecResult> {
    if (this.workers.closed) throw new Error('codec pool is closed');
    if (this.size === 0) return runCodecRequest(request);
    const response = await this.workers.request(request as unknown as Record<string, unknown>);
    if (!response.ok) throw new Error(response.error);
    // Transferred buffers arrive as plain Uint8Arrays: give them Buffer views again.
    const result = response.result;
    result.blockData = result.blockData.map((blocks) => blocks.map((block) => toBuffer(block)));
    result.blooms = result.blooms.map((bloom) => toBuffer(bloom));
    return result;
  }

  /** The running workers' heaps, as of their last responses. */
  get heapBytes(): number {
    return this.workers.heapBytes;
  }

  async close(): Promise<void> {
    await this.workers.close();
  }
}

function toBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
