/**
 * Recently read bloom filters, kept in memory up to a byte budget (least recently used out
 * first): a needle search probes the filter of every row block in range, and these are immutable
 * for a segment's life, like RocksDB's own cache of filter blocks.
 */
export class BloomCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [oldKey, oldValue] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= oldValue.length;
    }
  }

  /** Forgets every filter of a segment (its blocks are being deleted). */
  forget(segmentId: string, blocks: number): void {
    for (let block = 0; block < blocks; block++) {
      const key = `${segmentId}/${block}`;
      const value = this.entries.get(key);
      if (value !== undefined) {
        this.entries.delete(key);
        this.bytes -= value.length;
      }
    }
  }
}
