/**
 * Where a node's memory goes, part by part, with the bound each part keeps (`/status` `memory`,
 * `trawl_memory_bytes{part}`). The parts are what the node can count; the resident size also
 * holds the worker threads' own heaps, native libraries and memory the allocator keeps after a
 * part freed it, which is what `rss_bytes` beyond their sum is.
 */
import type { RocksMemory } from '../../storage/core/rocks';
import type { Settings } from '../config/settings';

/** What the report reads: the running node's parts (App, without importing it). */
export interface MemorySources {
  engine: {
    rocks: { memory(): Promise<RocksMemory> };
    stats(): { bufferedBytes: number };
    pool: { heapBytes: number };
    compactionPool: { heapBytes: number };
  };
  queryWorkers: { blockCacheCounters(): { bytes: number; maxBytes: number }; heapBytes(): number };
  ingestParser: { heapBytes: number };
  queries: { cache: { stats(): { size_bytes: number } } };
  settings: Settings;
}

export interface MemoryPart {
  bytes: number;
  /** The configured bound of the part, or null where it has none in bytes. */
  max_bytes: number | null;
}

export interface MemoryReport {
  rss_bytes: number;
  heap_used_bytes: number;
  heap_total_bytes: number;
  parts: Record<string, MemoryPart>;
}

export async function memoryReport(app: MemorySources): Promise<MemoryReport> {
  const process_ = process.memoryUsage();
  const rocks = await app.engine.rocks.memory();
  const blockCache = app.queryWorkers.blockCacheCounters();
  const { bufferManager, query } = app.settings;
  return {
    rss_bytes: process_.rss,
    heap_used_bytes: process_.heapUsed,
    heap_total_bytes: process_.heapTotal,
    parts: {
      // The main thread's JavaScript heap, and the buffers outside it (request bodies, chunks on their way).
      main_heap: { bytes: process_.heapTotal, max_bytes: null },
      main_buffers: { bytes: process_.external, max_bytes: null },
      rocksdb_memtables: { bytes: rocks.memtableBytes, max_bytes: bufferManager.memtableMaxBytes },
      rocksdb_block_cache: { bytes: rocks.blockCacheBytes, max_bytes: null },
      rocksdb_table_readers: { bytes: rocks.tableReaderBytes, max_bytes: null },
      write_buffer: { bytes: app.engine.stats().bufferedBytes, max_bytes: null },
      query_block_cache: { bytes: blockCache.bytes, max_bytes: blockCache.maxBytes },
      result_cache: { bytes: app.queries.cache.stats().size_bytes, max_bytes: query.cacheMaxBytes },
      // The worker threads' own heaps (the query workers' holds their block cache). Ingest and codec
      // workers idle for 30 s stop, and their heaps with them.
      ingest_worker_heaps: { bytes: app.ingestParser.heapBytes, max_bytes: null },
      codec_worker_heaps: { bytes: app.engine.pool.heapBytes + app.engine.compactionPool.heapBytes, max_bytes: null },
      query_worker_heaps: { bytes: app.queryWorkers.heapBytes(), max_bytes: null },
    },
  };
}
