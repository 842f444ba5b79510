/**
 * A thin typed wrapper over `rocksdb-native`: atomic write batches, multi-get, prefix scans and
 * WAL syncing. Everything Trawl stores lives in one RocksDB column family under key prefixes
 * (see keys.ts), so a flush can write segments and delete write-buffer records atomically.
 */
import fs from 'fs';
import path from 'path';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- rocksdb-native ships no type declarations
const RocksDB = require('rocksdb-native');

export type WriteOp =
  { type: 'put'; key: Buffer; value: Buffer } | { type: 'del'; key: Buffer } | { type: 'delRange'; start: Buffer; end: Buffer };

interface NativeBatch {
  put(key: Buffer, value: Buffer): Promise<void>;
  tryPut(key: Buffer, value: Buffer): void;
  tryDelete(key: Buffer): void;
  tryDeleteRange(start: Buffer, end: Buffer): void;
  get(key: Buffer): Promise<Buffer | null>;
  flush(): Promise<void>;
  tryFlush(): void;
}

interface NativeDb {
  ready(): Promise<void>;
  close(): Promise<void>;
  write(opts: { autoDestroy: boolean; capacity?: number }): NativeBatch;
  read(opts: { autoDestroy: boolean; capacity?: number }): NativeBatch;
  iterator(range: { gte?: Buffer; lt?: Buffer; reverse?: boolean }): AsyncIterable<{ key: Buffer; value: Buffer }>;
  flush(): Promise<void>;
  compactRange(start?: Buffer | null, end?: Buffer | null): Promise<void>;
  currentWalFile(): Promise<{ path: string; number: number }>;
  getProperty(name: string): Promise<string>;
}

/** `buffer_manager.memtable_max_bytes` by default (docs/benchmarks.md, "Figures behind the constants"). */
export const DEFAULT_MEMTABLE_BYTES = 128 * 1024 * 1024;
/** The smallest memtable RocksDB is given: below it, write-buffer records reach SSTs before their delete. */
const MIN_MEMTABLE_BYTES = 4 * 1024 * 1024;

/** What RocksDB holds in memory, from its properties. */
export interface RocksMemory {
  /** Active and immutable memtables. */
  memtableBytes: number;
  /** RocksDB's own block cache (compressed SST blocks, index and filter blocks). */
  blockCacheBytes: number;
  /** Open SST readers' index and filter memory outside the block cache. */
  tableReaderBytes: number;
}

export class Rocks {
  private walHandle: { number: number; file: fs.promises.FileHandle } | null = null;
  private closed = false;

  private constructor(
    private readonly db: NativeDb,
    readonly dir: string,
  ) {}

  /**
   * @param memtableBytes the most RocksDB's memtables hold at once (`buffer_manager.memtable_max_bytes`):
   * two memtables of half of it, one taking writes while the other is written out.
   */
  static async open(dir: string, memtableBytes = DEFAULT_MEMTABLE_BYTES): Promise<Rocks> {
    fs.mkdirSync(dir, { recursive: true });
    const db: NativeDb = new RocksDB(dir, {
      // Write-buffer records are deleted about a flush interval after they are written: a memtable
      // that takes seconds of ingest lets the put and its delete meet in memory, so most records
      // never reach an SST. A larger one costs resident memory that glibc rarely gives back.
      writeBufferSize: Math.max(MIN_MEMTABLE_BYTES, Math.floor(memtableBytes / 2)),
      maxWriteBufferNumber: 2,
    });
    try {
      await db.ready();
    } catch (error) {
      // RocksDB says "While lock file: .../LOCK: Resource temporarily unavailable": say who holds it.
      if (/lock file/i.test((error as Error).message)) {
        throw new Error(
          `the data dir ${path.dirname(dir)} is in use by another trawl process (RocksDB holds the lock ${path.join(dir, 'LOCK')}): stop it, or give this one its own --data-dir`,
          { cause: error },
        );
      }
      throw error;
    }
    return new Rocks(db, dir);
  }

  /** What RocksDB holds in memory now. */
  async memory(): Promise<RocksMemory> {
    const read = async (name: string): Promise<number> => Number(await this.db.getProperty(name)) || 0;
    const [memtableBytes, blockCacheBytes, tableReaderBytes] = await Promise.all([
      read('rocksdb.cur-size-all-mem-tables'),
      read('rocksdb.block-cache-usage'),
      read('rocksdb.estimate-table-readers-mem'),
    ]);
    return { memtableBytes, blockCacheBytes, tableReaderBytes };
  }

  /** Applies all operations atomically. Resolves once they are in RocksDB's WAL (and synced when `sync`). */
  async write(ops: WriteOp[], sync = false): Promise<void> {
    if (ops.length === 0) return;
    const batch = this.db.write({ autoDestroy: true, capacity: ops.length });
    for (const op of ops) {
      if (op.type === 'put') batch.tryPut(op.key, op.value);
      else if (op.type === 'del') batch.tryDelete(op.key);
      else batch.tryDeleteRange(op.start, op.end);
    }
    await batch.flush();
    if (sync) await this.syncWal();
  }

  async get(key: Buffer): Promise<Buffer | null> {
    const [value] = await this.getMany([key]);
    return value;
  }

  /** One multi-get for many keys (RocksDB reads them in its own threads). */
  async getMany(keys: Buffer[]): Promise<(Buffer | null)[]> {
    if (keys.length === 0) return [];
    const batch = this.db.read({ autoDestroy: true, capacity: keys.length });
    const promises = keys.map((key) => batch.get(key));
    batch.tryFlush();
    return Promise.all(promises);
  }

  /** Every key/value with the prefix, in key order. */
  async *scan(prefix: Buffer): AsyncGenerator<{ key: Buffer; value: Buffer }> {
    yield* this.scanRange(prefix, prefixEnd(prefix));
  }

  /** Every key/value in [start, end), in key order. */
  async *scanRange(start: Buffer, end: Buffer): AsyncGenerator<{ key: Buffer; value: Buffer }> {
    for await (const entry of this.db.iterator({ gte: start, lt: end })) yield entry;
  }

  /**
   * fsync the live RocksDB WAL file: rocksdb-native has no per-write `sync` flag, so durability
   * against power loss (`storage.fsync`) syncs the file the writes just went to.
   */
  async syncWal(): Promise<void> {
    const wal = await this.db.currentWalFile();
    if (this.walHandle === null || this.walHandle.number !== wal.number) {
      if (this.walHandle !== null) await this.walHandle.file.close();
      const file = await fs.promises.open(path.join(this.dir, wal.path), 'r');
      this.walHandle = { number: wal.number, file };
    }
    await this.walHandle.file.datasync();
  }

  async property(name: string): Promise<string> {
    return this.db.getProperty(name);
  }

  async compactRange(start: Buffer, end: Buffer): Promise<void> {
    await this.db.compactRange(start, end);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.walHandle !== null) await this.walHandle.file.close();
    // Write the memtable out so the RocksDB WAL (mostly write-buffer records already deleted) can go.
    await this.db.flush();
    await this.db.close();
  }
}

/** The smallest key greater than every key starting with `prefix`. */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0xff, 0xff, 0xff, 0xff]);
}

/** Total bytes of files under a directory (the data dir's real disk footprint). */
export function directoryBytes(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else {
        try {
          total += fs.statSync(full).size;
        } catch {
          // A file removed by a concurrent RocksDB compaction: skip it.
        }
      }
    }
  }
  return total;
}
