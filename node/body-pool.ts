/**
 * Reused memory for large request bodies. A 10,000-event `/ingest` body is ~5 MB: allocating a
 * fresh buffer per request added ~0.5 GB of external memory to the main thread per million
 * events, and V8 answers external memory growth with garbage collections (a mark-compact about
 * every 64 MB, each pausing the main thread and marking on the platform threads). A body read into
 * pooled memory moves to a parse worker, which moves it back when it is done (ingest-parser.ts);
 * the next large body is read into it.
 */

/** Bodies at least this large are read into pooled memory (smaller ones are parsed in place). */
export const POOLED_BODY_BYTES = 64 * 1024;
/** Pooled buffers are sized in steps of this, so one serves bodies of similar sizes. */
const SIZE_STEP = 1024 * 1024;
/** Free buffers kept: a few requests in flight per parse worker. */
const MAX_FREE = 8;

export class BodyPool {
  private readonly free: ArrayBuffer[] = [];
  /** Memory this pool handed out (or took back): a parse may move it to a worker and back. */
  private readonly pooled = new WeakSet<ArrayBuffer>();

  /** Memory for a body of `length` bytes: the smallest free buffer that fits, else a new one. */
  take(length: number): ArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const size = this.free[i].byteLength;
      if (size >= length && (best === -1 || size < this.free[best].byteLength)) best = i;
    }
    if (best !== -1) return this.free.splice(best, 1)[0];
    const memory = new ArrayBuffer(Math.ceil(Math.max(1, length) / SIZE_STEP) * SIZE_STEP);
    this.pooled.add(memory);
    return memory;
  }

  /** Whether `memory` came from this pool (and so may be moved to a worker and given back). */
  owns(memory: ArrayBufferLike): boolean {
    return memory instanceof ArrayBuffer && this.pooled.has(memory);
  }

  /** Gives memory back once nothing reads it; past MAX_FREE buffers, the smallest is dropped. */
  give(memory: ArrayBuffer): void {
    // Detached memory moved elsewhere; memory listed twice would be handed to two bodies at once.
    if (memory.byteLength === 0 || this.free.includes(memory)) return;
    this.pooled.add(memory);
    this.free.push(memory);
    if (this.free.length > MAX_FREE) {
      let smallest = 0;
      for (let i = 1; i < this.free.length; i++) if (this.free[i].byteLength < this.free[smallest].byteLength) smallest = i;
      this.free.splice(smallest, 1);
    }
  }

  get freeBuffers(): number {
    return this.free.length;
  }
}

/** The process's pool: request bodies are read on the main thread, one pool serves them all. */
export const bodyPool = new BodyPool();
