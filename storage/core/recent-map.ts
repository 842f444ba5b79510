/**
 * A Map kept to a number of entries, least recently used out first: a read moves its entry to
 * the end, and a write past the capacity drops the first. For small memos whose entries weigh
 * about the same (verified tokens, parsed queries); ByteLru is the one kept to a byte budget.
 */
export class RecentMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
