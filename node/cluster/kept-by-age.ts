/**
 * A bounded memo that forgets its oldest entries first: at most `maxEntries` entries holding at
 * most `maxSize` in all (`sizeOf` measures an entry, in keys for the key lists kept here). Adding
 * an entry forgets the oldest until both bounds hold; an entry above `maxSize` alone is not kept.
 */
export class KeptByAge<Value> {
  private readonly entries = new Map<string, Value>();
  private size = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxSize: number,
    private readonly sizeOf: (value: Value) => number,
  ) {}

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): Value | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: Value): void {
    this.delete(key);
    const size = this.sizeOf(value);
    if (size > this.maxSize) return;
    while (this.entries.size > 0 && (this.entries.size >= this.maxEntries || this.size + size > this.maxSize))
      this.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
    this.size += size;
  }

  clear(): void {
    this.entries.clear();
    this.size = 0;
  }

  private delete(key: string): void {
    if (!this.entries.has(key)) return;
    this.size -= this.sizeOf(this.entries.get(key)!);
    this.entries.delete(key);
  }
}
