/**
 * Operational endpoints: health, Prometheus and JSON metrics, status, storage stats, compaction
 * history, the single-node cluster summary and the runtime config.
 */
import { clusterHealth, membershipStatus } from '../../cluster/cluster-status';
import type { FastifyPluginAsync } from 'fastify';
import path from 'path';
import type { App } from '../../app/app';
import { ConfigError, mergeConfig } from '../../config/validate';
import { validationError } from '../../core/errors';
import { parseTimeBound } from '../../core/time-bound';

const iso = (micros: number | null): string | null => (micros === null ? null : new Date(Math.floor(micros / 1000)).toISOString());

/** `/health` and `/metrics` at the root, always unauthenticated. */
export function rootRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    server.get('/health', async () => {
      const node = app.cluster;
      if (node === null) return { data: { status: 'healthy', degraded: false, version: app.version } };
      // A clustered node is up but degraded while it catches up or a member not removed is down.
      return { data: { status: 'healthy', ...clusterHealth(node.membership.members(), node.catchUp.catchingUp()), version: app.version } };
    });
    server.get('/metrics', async (_request, reply) => {
      reply.header('content-type', app.metrics.registry.contentType);
      return app.metrics.registry.metrics();
    });
  };
}

const PATCHABLE_KEYS = new Set(['retention', 'log_level', 'listen', 'query', 'ingest', 'storage', 'http']);
/** `PATCH /config`: a JSON object; its keys and values are checked as a reload checks them (mergeConfig). */
const CONFIG_PATCH_SCHEMA = { type: 'object' } as const;

const COMPACTION_HISTORY_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    since: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 10000 },
  },
  additionalProperties: false,
} as const;

export function opsRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    server.get('/status', async () => {
      const stats = app.engine.stats();
      const memory = process.memoryUsage();
      return {
        data: {
          version: app.version,
          uptime_seconds: app.uptimeSeconds(),
          health: 'healthy',
          storage: { used_bytes: app.engine.diskBytes(), segment_bytes: stats.segmentBytes, buffered_events: stats.bufferedEvents },
          events: { total: stats.totalEvents, today: stats.eventsToday },
          queries: { active: app.jobs.running },
          views: { total: 0, active: 0 },
          tail: { active_sessions: 0, subscriber_count: 0, total_dropped_events: 0 },
          retention: { period: app.config.retention, oldest_event: iso(stats.oldestEvent) },
          memory: { rss_bytes: memory.rss, heap_used_bytes: memory.heapUsed, heap_total_bytes: memory.heapTotal },
        },
      };
    });

    server.get('/stats', async () => {
      const stats = app.engine.stats();
      const sources = app.engine.sources({ index: null, fromMicros: -Infinity, toMicros: Infinity, source: null });
      const data: Record<string, unknown> = {
        uptime_seconds: app.uptimeSeconds(),
        storage_bytes: app.engine.diskBytes(),
        total_events: stats.totalEvents,
        events_today: stats.eventsToday,
        index_count: stats.indexCount,
        indexes: stats.indexes,
        segment_count: stats.segmentCount,
        buffered_events: stats.bufferedEvents,
        sources: sources.size,
        raw_bytes: stats.rawBytes,
        segment_bytes: stats.segmentBytes,
      };
      if (stats.oldestEvent !== null) data.oldest_event = iso(stats.oldestEvent);
      if (stats.newestEvent !== null) data.newest_event = iso(stats.newestEvent);
      return { data };
    });

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
            buffered_events: stats.bufferedEvents,
            buffered_bytes: stats.bufferedBytes,
            total_events: stats.totalEvents,
            compaction_running: backlog.running,
            compaction_pending: backlog.pending,
          },
          block_cache: blockCacheSection(app.queryWorkers.blockCacheCounters()),
          ingest: { refused_events: await app.metrics.refusedEvents() },
          counters: await app.metrics.snapshot(),
        },
      };
    });

    const history = { schema: { querystring: COMPACTION_HISTORY_QUERY_SCHEMA } };
    server.get<{ Querystring: { since?: string; limit?: number } }>('/compaction/history', history, async (request) => {
      const since = request.query.since === undefined ? 0 : parseTimeBound('since', request.query.since, Date.now());
      const limit = request.query.limit ?? 1000;
      const compactions = await app.engine.compactionHistory(since, limit);
      return { data: { compactions, total: compactions.length } };
    });

    server.get('/cluster/status', async () => {
      const node = app.cluster;
      if (node !== null) {
        const { dataDir, cluster } = app.settings;
        return { data: membershipStatus(node.membership, { dataDir, replicationFactor: cluster.replicationFactor, catchingUp: (id) => !node.catchUp.mayAsk(id) }) };
      }
      const stats = app.engine.stats();
      const { cluster } = app.settings;
      return {
        data: {
          status: 'healthy',
          mode: 'single-node',
          node_count: 1,
          nodes: [
            {
              id: cluster.nodeId,
              address: `${app.settings.listen.host}:${app.settings.listen.port}`,
              grpc_address: cluster.grpcListen,
              role: cluster.role,
              state: 'alive',
              last_heartbeat: new Date().toISOString(),
            },
          ],
          index_count: stats.indexCount,
          segment_count: stats.segmentCount,
          buffered_size: stats.bufferedBytes,
          buffered_events: stats.bufferedEvents,
          data_dir: path.resolve(app.settings.dataDir),
        },
      };
    });

    server.get('/config', async () => ({ data: app.config }));

    const patchConfig = { schema: { body: CONFIG_PATCH_SCHEMA }, config: { bodyFormat: 'json' } } as const;
    server.patch<{ Body: Record<string, unknown> }>('/config', patchConfig, async (request) => {
      const patch = request.body;
      // Validated before the patchable check, so that a key of a feature this version lacks says so.
      let next;
      try {
        next = mergeConfig(app.config, patch, 'PATCH /config');
      } catch (error) {
        if (error instanceof ConfigError) throw validationError(error.message);
        throw error;
      }
      const unknown = Object.keys(patch).filter((key) => !PATCHABLE_KEYS.has(key));
      if (unknown.length > 0) {
        throw validationError(`these keys cannot be patched: ${unknown.join(', ')} (allowed: ${[...PATCHABLE_KEYS].join(', ')})`);
      }
      const result = app.applyConfig(next);
      app.logger.info(`config patched: ${result.changed.join(', ') || 'no change'}`);
      return { data: { config: app.config, changed: result.changed, restart_required: result.restartRequired } };
    });
  };
}

/** The query workers' block cache for `GET /api/v1/metrics` (buffer_manager.block_cache_max_bytes). */
function blockCacheSection(counters: { hits: number; misses: number; bytes: number; entries: number; maxBytes: number }): Record<string, number | null> {
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
