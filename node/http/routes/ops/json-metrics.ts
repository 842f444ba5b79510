/** `GET /api/v1/metrics`: storage, block cache, refused events and the counters, as JSON. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';

export function jsonMetricsRoute(server: FastifyInstance, app: App): void {
  server.get('/metrics', async () => {
    const stats = app.engine.stats();
    const backlog = app.engine.compactionBacklog();
    return {
      data: {
        storage: {
          segment_count: stats.segmentCount,
          segment_bytes: stats.segmentBytes,
          raw_bytes: stats.rawBytes,
          compression_ratio: stats.rawBytes === 0 ? null : stats.segmentBytes / stats.rawBytes,
          disk_bytes: app.engine.diskBytes(),
          buffered_events: stats.user.bufferedEvents,
          buffered_bytes: stats.bufferedBytes,
          total_events: stats.user.totalEvents,
          compaction_running: backlog.running,
          compaction_pending: backlog.pending,
        },
        block_cache: blockCacheSection(app.queryWorkers.blockCacheCounters()),
        ingest: { refused_events: await app.metrics.refusedEvents() },
        counters: await app.metrics.snapshot(),
      },
    };
  });
}

/** The query workers' block cache (buffer_manager.block_cache_max_bytes). */
function blockCacheSection(counters: {
  hits: number;
  misses: number;
  bytes: number;
  entries: number;
  maxBytes: number;
}): Record<string, number | null> {
  const reads = counters.hits + counters.misses;
  return {
    hits: counters.hits,
    misses: counters.misses,
    hit_rate: reads === 0 ? null : counters.hits / reads,
    entries: counters.entries,
    size_bytes: counters.bytes,
    max_bytes: counters.maxBytes,
  };
}
