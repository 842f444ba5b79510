/** A binary max-heap of rows by time: the newest row on top. */
import type { TimedRow } from './rows';

export class TimeHeap {
  private readonly rows: TimedRow[] = [];

  get size(): number {
    return this.rows.length;
  }

  /** The newest row's time (-Infinity when empty). */
  get topTime(): number {
    return this.rows.length === 0 ? -Infinity : this.rows[0].time;
  }

  push(row: TimedRow): void {
    const heap = this.rows;
    let i = heap.push(row) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].time >= row.time) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = row;
  }

  /** Takes the newest row (the heap must not be empty). */
  pop(): TimedRow {
    const heap = this.rows;
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

  /** Takes every row at least as new as `floor`, newest first. */
  popFrom(floor: number): TimedRow[] {
    const out: TimedRow[] = [];
    while (this.rows.length > 0 && this.rows[0].time >= floor) out.push(this.pop());
    return out;
  }
}
