/**
 * Newest-first order for streamed rows. Units are dispatched newest first (by their newest row),
 * but several are in flight at once and their times overlap (indexes, partitions, buffered rows
 * beside segments), so rows arrive out of order. A row is released once no unit that is still to
 * answer can hold a newer one: every unit not yet answered starts at or below the newest time of
 * the first of them in dispatch order (the watermark).
 */
import type { TimedRow } from './rows';
import { TimeHeap } from './time-heap';

export class StreamOrder {
  /** The rows waiting for the watermark to pass them. */
  private readonly heap = new TimeHeap();
  private readonly answered: boolean[];
  private firstOpen = 0;

  /** `unitMaxTimes`: each unit's newest time, in dispatch order (non-increasing). */
  constructor(private readonly unitMaxTimes: readonly number[]) {
    this.answered = new Array<boolean>(unitMaxTimes.length).fill(false);
  }

  get waiting(): number {
    return this.heap.size;
  }

  /** No row released later is newer than this (the newest time of the first unit not answered). */
  get bound(): number {
    return this.firstOpen < this.unitMaxTimes.length ? this.unitMaxTimes[this.firstOpen] : -Infinity;
  }

  /** Unit `u` answered with `rows`: the rows that can go out now, newest first. */
  answer(u: number, rows: readonly TimedRow[]): TimedRow[] {
    for (const row of rows) this.heap.push(row);
    this.answered[u] = true;
    while (this.firstOpen < this.answered.length && this.answered[this.firstOpen]) this.firstOpen++;
    return this.heap.popFrom(this.bound);
  }
}
