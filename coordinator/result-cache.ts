/**
 * The query result cache (`query.cache_max_bytes`, LRU by size). An entry remembers the data
 * version it was computed at; a lookup serves it only if no change since then touched one of its
 * indexes within its time range, so it never answers stale after new events arrive in range.
 */

export interface CacheStats {
  hits: number;
  misses: number;
  hit_rate: number;
  entries: number;
  size_bytes: number;
  evictions: number;
}

interface Entry<T> {
  value: T;
  bytes: number;
  version: number;
  indexes: (name: string) => boolean;
  from: number;
  to: number;
}

export type ChangedSince = (version: number, indexes: (name: string) => boolean, from: number, to: number) => boolean;

export class ResultCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(
    private maxBytes: () => number,
    private readonly changedSince: ChangedSince,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || this.changedSince(entry.version, entry.indexes, entry.from, entry.to)) {
      if (entry !== undefined) this.remove(key, entry);
      this.misses++;
      return undefined;
    }
    // Refresh recency: Map keeps insertion order, so re-inserting moves it to the back.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return entry.value;
  }

  /** `sizeOf` measures the entry, only when the cache is on: measuring a large answer costs a serialization. */
  set(key: string, value: T, sizeOf: () => number, version: number, indexes: (name: string) => boolean, from: number, to: number): void {
    const limit = this.maxBytes();
    if (limit <= 0) return;
    const bytes = sizeOf();
    if (bytes > limit) return;
    const existing = this.entries.get(key);
    if (existing !== undefined) this.remove(key, existing);
    this.entries.set(key, { value, bytes, version, indexes, from, to });
    this.bytes += bytes;
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.bytes <= limit) break;
      this.remove(oldKey, oldEntry);
      this.evictions++;
    }
  }

  clear(): number {
    const count = this.entries.size;
    this.entries.clear();
    this.bytes = 0;
    return count;
  }

  stats(): CacheStats {
    const lookups = this.hits + this.misses;
    return {
      hits: this.hits,
      misses: this.misses,
      hit_rate: lookups === 0 ? 0 : this.hits / lookups,
      entries: this.entries.size,
      size_bytes: this.bytes,
      evictions: this.evictions,
    };
  }

  private remove(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
