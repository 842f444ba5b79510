/** `GET /stats`: the storage engine's counts: events, indexes, segments, sources, bytes, time range. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { isUserIndexName } from '../../../../storage/core/event';
import { isoOfMicros } from './iso-time';

export function storageStatsRoute(server: FastifyInstance, app: App): void {
  server.get('/stats', async () => {
    const stats = app.engine.stats();
    const sources = app.engine.sources({ index: isUserIndexName, fromMicros: -Infinity, toMicros: Infinity, source: null });
    // The audit log's index is the server's own: counted in the events and bytes, not listed.
    const indexes = stats.indexes.filter(isUserIndexName);
    const data: Record<string, unknown> = {
      uptime_seconds: app.uptimeSeconds(),
      storage_bytes: app.engine.diskBytes(),
      total_events: stats.user.totalEvents,
      events_today: stats.user.eventsToday,
      index_count: indexes.length,
      indexes,
      segment_count: stats.segmentCount,
      buffered_events: stats.user.bufferedEvents,
      sources: sources.size,
      raw_bytes: stats.rawBytes,
      segment_bytes: stats.segmentBytes,
    };
    if (stats.user.oldestEvent !== null) data.oldest_event = isoOfMicros(stats.user.oldestEvent);
    if (stats.user.newestEvent !== null) data.newest_event = isoOfMicros(stats.user.newestEvent);
    return { data };
  });
}
