/**
 * The smallest value among entries added with rising keys and mostly removed oldest first (a
 * queue's sliding minimum): O(1) amortized for each add, removal and read, where a scan of every
 * entry would make replaying n hints cost n². An entry removed out of order is allowed; the next
 * read then rebuilds from the entries.
 */
export class OldestWindow {
  private readonly entries = new Map<number, number>();
  /** Keys whose values rise strictly from `head` on: each is the smallest of the entries from it on. */
  private keys: number[] = [];
  private values: number[] = [];
  private head = 0;
  private stale = false;

  get size(): number {
    return this.entries.size;
  }

  /** Adds `key` (greater than every key added before) with `value`. */
  add(key: number, value: number): void {
    this.entries.set(key, value);
    if (this.stale) return;
    while (this.values.length > this.head && this.values[this.values.length - 1]! >= value) {
      this.keys.pop();
      this.values.pop();
    }
    this.keys.push(key);
    this.values.push(value);
  }

  remove(key: number): void {
    const oldest = this.entries.keys().next().value;
    if (!this.entries.delete(key) || this.stale) return;
    if (key === oldest) {
      // In order: the window loses its head if the head is this entry (else it was dominated).
      if (this.head < this.keys.length && this.keys[this.head] === key) this.head++;
      if (this.head > 1024 && this.head * 2 > this.keys.length) {
        this.keys = this.keys.slice(this.head);
        this.values = this.values.slice(this.head);
        this.head = 0;
      }
    } else if (this.holds(key)) {
      // Removed ahead of older entries while it is a window's minimum: rebuild on the next read.
      this.stale = true;
    }
  }

  /** Whether `key` is in the window (its keys rise: a binary search). */
  private holds(key: number): boolean {
    let low = this.head;
    let high = this.keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.keys[middle]! < key) low = middle + 1;
      else high = middle;
    }
    return low < this.keys.length && this.keys[low] === key;
  }

  /** The smallest value of the entries; null when there are none. */
  min(): number | null {
    if (this.entries.size === 0) return null;
    if (this.stale) this.rebuild();
    return this.values[this.head]!;
  }

  private rebuild(): void {
    this.stale = false;
    this.keys = [];
    this.values = [];
    this.head = 0;
    const sorted = [...this.entries].sort((a, b) => a[0] - b[0]);
    this.entries.clear();
    for (const [key, value] of sorted) this.add(key, value);
  }
}
