/**
 * Newest-first order for streamed rows. Units are dispatched newest first (by their newest row),
 * but several are in flight at once and their times overlap (indexes, partitions, buffered rows
 * beside segments), so rows arrive out of order. A row is released once no unit that is still to
 * answer can hold a newer one: every unit not yet answered starts at or below the newest time of
 * the first of them in dispatch order (the watermark).
 */
import type { TimedRow } from './rows';

export class StreamOrder {
  /** A binary max-heap by time of the rows waiting for the watermark to pass them. */
  private readonly heap: TimedRow[] = [];
  private readonly answered: boolean[];
  private firstOpen = 0;

  /** `unitMaxTimes`: each unit's newest time, in dispatch order (non-increasing). */
  constructor(private readonly unitMaxTimes: readonly number[]) {
    this.answered = new Array<boolean>(unitMaxTimes.length).fill(false);
  }

  get waiting(): number {
    return this.heap.length;
  }

  /** Unit `u` answered with `rows`: the rows that can go out now, newest first. */
  answer(u: number, rows: readonly TimedRow[]): TimedRow[] {
    for (const row of rows) this.push(row);
    this.answered[u] = true;
    while (this.firstOpen < this.answered.length && this.answered[this.firstOpen]) this.firstOpen++;
    const watermark = this.firstOpen < this.unitMaxTimes.length ? this.unitMaxTimes[this.firstOpen] : -Infinity;
    const out: TimedRow[] = [];
    while (this.heap.length > 0 && this.heap[0].time >= watermark) out.push(this.pop());
    return out;
  }

  private push(row: TimedRow): void {
    const heap = this.heap;
    let i = heap.push(row) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].time >= row.time) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = row;
  }

  private pop(): TimedRow {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop() as TimedRow;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && heap[right].time > heap[left].time ? right : left;
        if (heap[child].time <= last.time) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}
