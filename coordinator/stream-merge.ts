/**
 * Newest-first export across shards. Each shard streams its rows newest first, each batch with a
 * bound: no row it sends later is newer than that. A row goes out once it is at least as new as
 * every open shard's bound, so the merged stream is newest first too; a shard that ended bounds
 * nothing. A shard none of whose rows went out yet can be withdrawn (its rows dropped), so that its
 * keys can be read again elsewhere. (StreamOrder in query/exec does the same within one node, over
 * its units.)
 */
import type { TimedRow } from '../query/exec/rows';
import { TimeHeap } from '../query/exec/time-heap';

export class StreamMerge {
  /** The rows waiting for every shard's bound to pass them. */
  private readonly heap = new TimeHeap();
  private readonly bounds = new Map<number, number>();
  private nextSource = 0;
  /** Sources waiting for the floor to move (changed()). */
  private waiters: (() => void)[] = [];
  /** The source of each row still waiting. */
  private readonly sourceOf = new Map<TimedRow, number>();
  /** Rows of withdrawn sources, still in the heap: skipped when they come out. */
  private readonly dropped = new Set<TimedRow>();
  /** Sources some row of which went out. */
  private readonly released = new Set<number>();

  /** A new shard stream; until its first batch it may send anything. */
  open(): number {
    const source = this.nextSource++;
    this.bounds.set(source, Infinity);
    return source;
  }

  /** A shard's batch (newest first) and its new bound: the rows that can go out now, newest first. */
  add(source: number, rows: readonly TimedRow[], bound: number): TimedRow[] {
    for (const row of rows) {
      this.heap.push(row);
      this.sourceOf.set(row, source);
    }
    if (this.bounds.has(source)) this.bounds.set(source, bound);
    return this.release();
  }

  /** A shard finished (or was given up: its rows so far stay): what can go out now. */
  close(source: number): TimedRow[] {
    this.bounds.delete(source);
    return this.release();
  }

  /** Whether a row of the source went out. */
  sent(source: number): boolean {
    return this.released.has(source);
  }

  /** A shard given up before any of its rows went out: its waiting rows are dropped; what can go out now. */
  withdraw(source: number): TimedRow[] {
    for (const [row, of] of this.sourceOf) {
      if (of !== source) continue;
      this.sourceOf.delete(row);
      this.dropped.add(row);
    }
    return this.close(source);
  }

  get waiting(): number {
    return this.heap.size - this.dropped.size;
  }

  /**
   * Whether an open source is ahead of the slowest one: its rows are all older than what the
   * slowest may still send, so they wait here. The slowest source is never ahead.
   */
  ahead(source: number): boolean {
    const bound = this.bounds.get(source);
    return bound !== undefined && bound < this.floor();
  }

  /** Resolves at the next batch or close of any source (or once `signal` aborts). */
  changed(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private floor(): number {
    let floor = -Infinity;
    for (const bound of this.bounds.values()) if (bound > floor) floor = bound;
    return floor;
  }

  private release(): TimedRow[] {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
    const out: TimedRow[] = [];
    for (const row of this.heap.popFrom(this.floor())) {
      if (this.dropped.delete(row)) continue;
      this.released.add(this.sourceOf.get(row)!);
      this.sourceOf.delete(row);
      out.push(row);
    }
    return out;
  }
}
