/** The newest N rows by time, kept without sorting on every insert. */
import type { TimedRow } from './rows';

export class NewestRows {
  rows: TimedRow[] = [];
  private floor = -Infinity;

  constructor(readonly capacity: number) {}

  get full(): boolean {
    return this.rows.length >= this.capacity;
  }

  /** Time a row must exceed to enter once full. */
  get minTime(): number {
    return this.full ? this.floor : -Infinity;
  }

  accepts(time: number): boolean {
    return this.capacity > 0 && (!this.full || time > this.floor);
  }

  push(row: TimedRow): void {
    if (this.capacity === 0) return;
    this.rows.push(row);
    if (this.rows.length >= this.capacity * 2) this.compact();
  }

  compact(): void {
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
