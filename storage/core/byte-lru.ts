/**
 * Buffers kept in memory up to a byte budget, least recently used out first. Immutable things
 * read again and again live here: a segment block's bloom filter (segment-store.ts), a decoded
 * block's payload (segment/payload-cache.ts). Like RocksDB's block cache, a hit costs a Map
 * lookup and a re-insertion.
 */
export class ByteLru<V extends Uint8Array = Uint8Array> {
  private readonly entries = new Map<string, V>();
  private held = 0;

  /** `onEvict`: told of each value pushed out to make room (not of delete()). */
  constructor(
    private readonly maxBytes: number,
    private readonly onEvict?: (key: string, value: V) => void,
  ) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.held;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Keeps a value unless it alone exceeds the budget; older values make room. */
  set(key: string, value: V): void {
    if (value.length > this.maxBytes || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.held += value.length;
    for (const [oldKey, oldValue] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.held -= oldValue.length;
      this.onEvict?.(oldKey, oldValue);
    }
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.held -= value.length;
  }
}

/** The bloom filters of segment blocks, keyed `segment/block`. */
export class BloomCache extends ByteLru<Buffer> {
  /** Forgets every filter of a segment (its blocks are being deleted). */
  forget(segmentId: string, blocks: number): void {
    for (let block = 0; block < blocks; block++) this.delete(`${segmentId}/${block}`);
  }
}
