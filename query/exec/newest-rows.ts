/** The newest N rows by time, kept without sorting on every insert. */
import type { TimedRow } from './rows';

export class NewestRows {
  rows: TimedRow[] = [];
  private floor = -Infinity;
  /** Rows were pushed since the floor was last set. */
  private stale = false;

  constructor(readonly capacity: number) {}

  get full(): boolean {
    return this.rows.length >= this.capacity;
  }

  /** Time a row must exceed to enter once full (the rows pushed since the last compaction count). */
  get minTime(): number {
    if (!this.full) return -Infinity;
    if (this.stale) this.compact();
    return this.floor;
  }

  accepts(time: number): boolean {
    return this.capacity > 0 && (!this.full || time > this.floor);
  }

  push(row: TimedRow): void {
    if (this.capacity === 0) return;
    this.rows.push(row);
    this.stale = true;
    if (this.rows.length >= this.capacity * 2) this.compact();
  }

  compact(): void {
    this.stale = false;
    if (this.capacity === 0) {
      this.rows = [];
      return;
    }
    this.rows.sort((a, b) => b.time - a.time);
    if (this.rows.length > this.capacity) this.rows.length = this.capacity;
    if (this.rows.length >= this.capacity) this.floor = this.rows[this.rows.length - 1].time;
  }

  sorted(): TimedRow[] {
    this.compact();
    return this.rows;
  }
}
