/**
 * The storage engine: one RocksDB under `<data_dir>/storage`, the write buffer, the segment set,
 * and the background flusher, compactor and retention. The node wires HTTP to `append` and the
 * query engine to `planScan`/`scanBatches`; nothing here knows about either.
 */
import { NodeRecords } from './node-records';
import { EventEmitter } from 'events';
import path from 'path';
import { Catalog, type CatalogFilter, type FieldSummary, type SourceSummary } from './catalog';
import { CodecPool } from './threads/codec-pool';
import { compactGroup, pickCompactions, readManifests, type CompactionManifest, type CompactionOptions } from './lifecycle/compactor';
import { isUserIndexName, type LogEvent } from './core/event';
import type { EventChunk } from './buffer/event-chunk';
import { flushGeneration, type FlushResult, type GroupOf } from './lifecycle/flusher';
import type { Placement } from './core/partition';
import { applyRetention, type RetentionResult } from './lifecycle/retention';
import { WAL_PREFIX } from './core/keys';
import { directoryBytes, prefixEnd, Rocks, type WriteOp } from './core/rocks';
import { localKeys, planScan, scanBatches, type ScanPlan, type ScanRequest } from './scan';
import { SegmentStore } from './lifecycle/segment-store';
import type { ColumnBatch } from './core/column';
import { WriteBuffer, type ReplayResult } from './buffer/write-buffer';

export interface EngineOptions {
  dataDir: string;
  placement: Placement;
  flushIntervalMs: number;
  segmentMaxEvents: number;
  compressionLevel: number;
  fsync: boolean;
  compactionIntervalMs: number;
  retentionMs: number;
  /** Codec worker threads (0 = encode on the calling thread). */
  codecWorkers: number;
  /** The most RocksDB's memtables hold (`buffer_manager.memtable_max_bytes`); the default when absent. */
  memtableBytes?: number;
}

export interface EngineStats {
  totalEvents: number;
  eventsToday: number;
  bufferedEvents: number;
  bufferedBytes: number;
  segmentCount: number;
  indexCount: number;
  indexes: string[];
  /** Compressed bytes of all segments (headers' accounting). */
  segmentBytes: number;
  /** Raw bytes of all stored events. */
  rawBytes: number;
  oldestEvent: number | null;
  newestEvent: number | null;
  /** The same counts of the user indexes alone: what the API shows (the internal ones, the audit log, are the server's). */
  user: { totalEvents: number; eventsToday: number; bufferedEvents: number; oldestEvent: number | null; newestEvent: number | null };
}

/** Counts of events, and the oldest and newest time among them. */
class EventTally {
  total = 0;
  today = 0;
  oldest = Infinity;
  newest = -Infinity;

  add(count: number, today: number, minTime: number, maxTime: number): void {
    this.total += count;
    this.today += today;
    this.oldest = Math.min(this.oldest, minTime);
    this.newest = Math.max(this.newest, maxTime);
  }

  get oldestEvent(): number | null {
    return Number.isFinite(this.oldest) ? this.oldest : null;
  }

  get newestEvent(): number | null {
    return Number.isFinite(this.newest) ? this.newest : null;
  }
}

/** Events: `flush` (FlushResult), `compaction` (CompactionManifest), `retention` (RetentionResult), `error` (Error, phase). */
export class StorageEngine extends EventEmitter {
  readonly catalog = new Catalog();
  private flushTimer: NodeJS.Timeout | null = null;
  private maintenanceTimer: NodeJS.Timeout | null = null;
  private flushChain: Promise<unknown> = Promise.resolve();
  private maintenanceChain: Promise<unknown> = Promise.resolve();
  private closing = false;
  /** A compaction pass is merging (compactionBacklog). */
  private compacting = false;
  private flushRequested = false;
  /** The index names of the segments as of a segment store version (heldIndexNames). */
  private segmentIndexNames: { version: number; names: ReadonlySet<string> } = { version: -1, names: new Set() };

  private constructor(
    readonly rocks: Rocks,
    readonly store: SegmentStore,
    readonly buffer: WriteBuffer,
    private options: EngineOptions,
    /** Encodes flushed segments. */
    readonly pool: CodecPool,
    /**
     * Merges segments: a worker of its own, as RocksDB keeps flushes and compactions in separate
     * thread pools. A merge runs for seconds; sharing the flusher's worker (one on 2 cores) queued
     * flushes behind it, the write buffer filled, and ingest got BACKPRESSURE while a core idled.
     * Its worker runs at background priority (thread-priority.ts): busy cores go to ingest first.
     */
    readonly compactionPool: CodecPool,
  ) {
    super();
  }

  /** Opens (or creates) the engine and replays the write buffer left by the previous run. */
  static async open(options: EngineOptions): Promise<StorageEngine> {
    const rocks = await Rocks.open(path.join(options.dataDir, 'storage'), options.memtableBytes);
    const store = new SegmentStore(rocks);
    await store.load();
    const buffer = new WriteBuffer(rocks, options.placement);
    const compactionWorkers = options.codecWorkers === 0 ? 0 : 1;
    const engine = new StorageEngine(
      rocks,
      store,
      buffer,
      options,
      new CodecPool(options.codecWorkers),
      new CodecPool(compactionWorkers, true),
    );
    engine.replayed = await buffer.replay();
    return engine;
  }

  /** What the write-buffer replay at open found, and the records it set aside. */
  replayed: ReplayResult = { records: 0, events: 0, quarantined: [] };

  /** Starts the periodic flusher and maintenance (compaction + retention). */
  start(): void {
    this.scheduleTimers();
  }

  /** Durable records of the node in one area (node-records.ts): cluster state, metadata, hints. */
  records(area: string): NodeRecords {
    return new NodeRecords(this.rocks, area, () => this.options.fsync);
  }

  updateOptions(options: EngineOptions): void {
    this.options = options;
    this.buffer.setPlacement({ ...options.placement, splits: this.splits });
    if (this.flushTimer !== null) this.scheduleTimers();
  }

  private splits: readonly number[] = [];

  /** The storage groups keys are flushed in (lifecycle/flusher.ts GroupOf); null: each key alone. */
  private groupOf: GroupOf | null = null;

  /**
   * Stores the partitions of a piece that `groupOf` puts in one group together from the next
   * flush on (segment/segment-keys.ts): a cluster node groups them by their owners. A group must
   * never change for a key once its events are stored, or a read could name part of a segment.
   */
  setGrouping(groupOf: GroupOf | null): void {
    this.groupOf = groupOf;
  }

  /**
   * The instants new events' keys split buckets at (core/partition.ts pieceOf): a cluster's ring
   * epochs that start inside a bucket. Keys already buffered keep their pieces.
   */
  setSplits(splits: readonly number[]): void {
    this.splits = [...splits];
    this.buffer.setPlacement({ ...this.options.placement, splits: this.splits });
  }

  private scheduleTimers(): void {
    if (this.flushTimer !== null) clearInterval(this.flushTimer);
    if (this.maintenanceTimer !== null) clearInterval(this.maintenanceTimer);
    this.flushTimer = setInterval(() => void this.flush().catch(() => undefined), this.options.flushIntervalMs);
    this.maintenanceTimer = setInterval(() => void this.maintain().catch(() => undefined), this.options.compactionIntervalMs);
    this.flushTimer.unref();
    this.maintenanceTimer.unref();
  }

  /**
   * Durable once resolved (see WriteBuffer.appendRecord); triggers an early flush when a segment's worth
   * is buffered. `alongside`: records written in the same atomic batch (a replayed hint's mark).
   */
  async appendRecord(chunks: readonly EventChunk[], value: Buffer, alongside: readonly WriteOp[] = []): Promise<void> {
    await this.buffer.appendRecord(chunks, value, this.options.fsync, alongside);
    this.afterAppend();
  }

  async appendEvents(events: LogEvent[]): Promise<void> {
    await this.buffer.appendEvents(events, this.options.fsync);
    this.afterAppend();
  }

  private afterAppend(): void {
    if (this.buffer.activeEvents >= this.options.segmentMaxEvents && !this.flushRequested) {
      this.flushRequested = true;
      void this.flush().catch(() => undefined);
    }
  }

  /** Flushes everything buffered so far into segments. Serialized with other flushes. */
  flush(): Promise<FlushResult[]> {
    const run = this.flushChain.then(async () => {
      this.flushRequested = false;
      if (this.buffer.activeEvents > 0) this.buffer.rotate();
      const results: FlushResult[] = [];
      for (const generation of this.buffer.sealedGenerations()) {
        try {
          const result = await flushGeneration(this.pool, generation, this.buffer, this.store, this.rocks, {
            compressionLevel: this.options.compressionLevel,
            segmentMaxEvents: this.options.segmentMaxEvents,
            sync: this.options.fsync,
            groupOf: this.groupOf,
          });
          results.push(result);
          this.emit('flush', result);
        } catch (error) {
          this.emit('error', error as Error, 'flush');
          throw error;
        }
      }
      return results;
    });
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  /**
   * Sets every event stored so far apart under `partition` (negative: no placement gives it):
   * flushes the write buffer, then moves every segment's key there in one batch, between
   * maintenance passes so that no merge mixes the two. What a node stored alone keeps its own
   * keys this way when the node becomes a member of a cluster (node/cluster/stored-alone.ts).
   * Run it before the node takes writes; a second run moves nothing.
   */
  setApart(partition: number): Promise<void> {
    if (!(Number.isSafeInteger(partition) && partition < 0))
      return Promise.reject(new Error(`events are set apart under a negative partition, not ${partition}`));
    const run = this.maintenanceChain.then(async () => {
      await this.flush();
      if (this.buffer.bufferedEvents > 0) throw new Error(`${this.buffer.bufferedEvents} events are still buffered after a flush`);
      const { headers, ops } = this.store.relabelOps(partition);
      if (ops.length === 0) return;
      await this.rocks.write(ops, true);
      this.store.apply(headers, []);
    });
    this.maintenanceChain = run.catch(() => undefined);
    return run;
  }

  /** What is stored under `partition`: its events, indexes and time range (microseconds, inclusive); null when nothing is. */
  heldUnder(partition: number): { events: number; indexes: string[]; fromMicros: number; toMicros: number } | null {
    const indexes = new Set<string>();
    let events = 0;
    let fromMicros = Infinity;
    let toMicros = -Infinity;
    for (const header of this.store.all()) {
      if (header.partition !== partition) continue;
      indexes.add(header.index);
      events += header.rowCount;
      fromMicros = Math.min(fromMicros, header.minTime);
      toMicros = Math.max(toMicros, header.maxTime);
    }
    return events === 0 ? null : { events, indexes: [...indexes].sort(), fromMicros, toMicros };
  }

  /** One compaction pass over every key, then retention. Serialized with other passes. */
  maintain(nowMs = Date.now()): Promise<{ manifests: CompactionManifest[]; retention: RetentionResult }> {
    const run = this.maintenanceChain.then(async () => {
      const manifests = await this.compact(nowMs);
      const retention = await this.retain(nowMs);
      await this.reclaimWriteBuffer();
      return { manifests, retention };
    });
    this.maintenanceChain = run.catch(() => undefined);
    return run;
  }

  private compactionOptions(nowMs: number): CompactionOptions {
    return {
      segmentMaxEvents: this.options.segmentMaxEvents,
      compressionLevel: this.options.compressionLevel,
      bucketSpanMicros: this.options.placement.bucketSpanMicros,
      closeGraceMicros: Math.max(this.options.compactionIntervalMs, 2 * this.options.flushIntervalMs) * 1000,
      nowMicros: nowMs * 1000,
    };
  }

  /**
   * Compaction's backlog: whether a merge is under way, and how many merges (or recompressions)
   * a pass would run now. Both zero: the data is in the form it keeps for its retention.
   */
  compactionBacklog(nowMs = Date.now()): { running: boolean; pending: number } {
    return { running: this.compacting, pending: pickCompactions(this.store.byKey(), this.compactionOptions(nowMs)).length };
  }

  private async compact(nowMs: number): Promise<CompactionManifest[]> {
    this.compacting = true;
    try {
      return await this.compactGroups(nowMs);
    } finally {
      this.compacting = false;
    }
  }

  /**
   * Awaited before each merge: resolves when background work may go on. The node holds merges
   * back while queries run (node/app/work-shares.ts); alone, the engine never waits.
   */
  backgroundTurn: () => Promise<void> = () => Promise.resolve();

  private async compactGroups(nowMs: number): Promise<CompactionManifest[]> {
    const options = this.compactionOptions(nowMs);
    const manifests: CompactionManifest[] = [];
    for (const group of pickCompactions(this.store.byKey(), options)) {
      await this.backgroundTurn();
      if (this.closing) break;
      // A segment may have been retired by retention since the pick.
      if (group.some((header) => this.store.get(header.id) === undefined)) continue;
      try {
        const manifest = await compactGroup(this.compactionPool, this.store, this.rocks, group, options);
        manifests.push(manifest);
        this.emit('compaction', manifest);
      } catch (error) {
        this.emit('error', error as Error, 'compaction');
      }
    }
    return manifests;
  }

  /**
   * Write-buffer records that reached an SST before their flush deleted them stay on disk until
   * RocksDB compacts their range; compacting it right away returns that space.
   */
  private async reclaimWriteBuffer(): Promise<void> {
    await this.rocks.compactRange(WAL_PREFIX, prefixEnd(WAL_PREFIX));
  }

  private async retain(nowMs: number): Promise<RetentionResult> {
    const result = await applyRetention(this.store, this.rocks, this.options.retentionMs, nowMs);
    if (result.segments > 0) {
      // Removed rows change answers over any index and time: results cached before are stale.
      this.buffer.changes.record('*', -Infinity, Infinity);
      this.emit('retention', result);
    }
    return result;
  }

  /** The partition keys this node holds data of, in an index and time range (scan.ts localKeys). */
  localKeys(request: Pick<ScanRequest, 'index' | 'fromMicros' | 'toMicros'>): Set<string> {
    return localKeys(this.store, this.buffer, request);
  }

  /**
   * The names of every index this node holds events of, in segments or the write buffer, internal
   * ones included. The segments' names are gathered again only once the segment set changed.
   */
  heldIndexNames(): Set<string> {
    if (this.segmentIndexNames.version !== this.store.version) {
      const names = new Set<string>();
      for (const header of this.store.all()) names.add(header.index);
      this.segmentIndexNames = { version: this.store.version, names };
    }
    const held = new Set(this.segmentIndexNames.names);
    for (const table of this.bufferedTables()) held.add(table.key.index);
    return held;
  }

  planScan(request: ScanRequest, trace = false): Promise<ScanPlan> {
    return planScan(this.store, this.buffer, request, trace);
  }

  scanBatches(plan: ScanPlan, request: ScanRequest): AsyncGenerator<ColumnBatch> {
    return scanBatches(this.store, plan, request);
  }

  /** Counts the rows in a time range and index set by reading the `_time` column (a full scan). */
  async countRows(request: Omit<ScanRequest, 'columns'>): Promise<number> {
    const full: ScanRequest = { ...request, columns: ['_time'] };
    const plan = await this.planScan(full);
    let rows = 0;
    for await (const batch of this.scanBatches(plan, full)) rows += batch.rowCount;
    return rows;
  }

  compactionHistory(sinceMs: number, limit = 1000): Promise<CompactionManifest[]> {
    return readManifests(this.rocks, sinceMs, limit);
  }

  fields(filter: CatalogFilter): Map<string, FieldSummary> {
    return this.catalog.fields(this.store.all(), this.bufferedTables(), filter);
  }

  fieldsPresent(filter: CatalogFilter, names: readonly string[]): Set<string> {
    return this.catalog.fieldsPresent(this.store.all(), this.bufferedTables(), filter, names);
  }

  sources(filter: CatalogFilter): Map<string, SourceSummary> {
    return this.catalog.sources(this.store.all(), this.bufferedTables(), filter);
  }

  private *bufferedTables() {
    for (const generation of this.buffer.generations()) yield* generation.tables.values();
  }

  stats(nowMs = Date.now()): EngineStats {
    const dayStart = Math.floor(nowMs / 86_400_000) * 86_400_000 * 1000;
    const indexes = new Set<string>();
    const all = new EventTally();
    const user = new EventTally();
    let segmentBytes = 0;
    let rawBytes = 0;
    for (const header of this.store.all()) {
      indexes.add(header.index);
      segmentBytes += header.bytes;
      rawBytes += header.rawBytes;
      // Buckets are aligned to bucket_span, which divides a day, so a segment never straddles midnight.
      const today = header.minTime >= dayStart ? header.rowCount : 0;
      all.add(header.rowCount, today, header.minTime, header.maxTime);
      if (isUserIndexName(header.index)) user.add(header.rowCount, today, header.minTime, header.maxTime);
    }
    let userBuffered = 0;
    for (const table of this.bufferedTables()) {
      indexes.add(table.key.index);
      if (isUserIndexName(table.key.index)) userBuffered += table.count;
      let today = 0;
      for (const chunk of table.chunks) {
        if (chunk.minTime >= dayStart) today += chunk.count;
        else if (chunk.maxTime >= dayStart) for (const time of chunk.times) if (time >= dayStart) today++;
      }
      all.add(table.count, today, table.minTime, table.maxTime);
      if (isUserIndexName(table.key.index)) user.add(table.count, today, table.minTime, table.maxTime);
    }
    return {
      totalEvents: all.total,
      eventsToday: all.today,
      bufferedEvents: this.buffer.bufferedEvents,
      bufferedBytes: this.buffer.bufferedBytes,
      segmentCount: this.store.size,
      indexCount: indexes.size,
      indexes: [...indexes].sort(),
      segmentBytes,
      rawBytes,
      oldestEvent: all.oldestEvent,
      newestEvent: all.newestEvent,
      user: {
        totalEvents: user.total,
        eventsToday: user.today,
        bufferedEvents: userBuffered,
        oldestEvent: user.oldestEvent,
        newestEvent: user.newestEvent,
      },
    };
  }

  /** Bytes the data directory takes on disk. */
  diskBytes(): number {
    return directoryBytes(this.options.dataDir);
  }

  /** Stops the timers, flushes what is buffered, waits for maintenance and closes RocksDB. */
  /** Stops the codec workers (close() does it; a test that simulates a crash calls it alone). */
  async closePools(): Promise<void> {
    await Promise.all([this.pool.close(), this.compactionPool.close()]);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.flushTimer !== null) clearInterval(this.flushTimer);
    if (this.maintenanceTimer !== null) clearInterval(this.maintenanceTimer);
    await this.maintenanceChain;
    try {
      await this.flush();
      await this.reclaimWriteBuffer();
    } finally {
      await this.store.whenPurged();
      await this.closePools();
      await this.rocks.close();
    }
  }
}
