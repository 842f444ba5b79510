/** `GET /status`: version, uptime, storage, events, queries, live tail, retention, memory and work shares of this node. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { memoryReport } from '../../../app/memory-parts';
import { isoOfMicros } from './iso-time';

export function statusRoute(server: FastifyInstance, app: App): void {
  server.get('/status', async () => {
    const stats = app.engine.stats();
    const memory = await memoryReport(app);
    return {
      data: {
        version: app.version,
        uptime_seconds: app.uptimeSeconds(),
        health: 'healthy',
        storage: { used_bytes: app.engine.diskBytes(), segment_bytes: stats.segmentBytes, buffered_events: stats.user.bufferedEvents },
        events: { total: stats.user.totalEvents, today: stats.user.eventsToday },
        queries: { active: app.jobs.running },
        views: { total: 0, active: 0 },
        tail: app.tail.status(),
        retention: { period: app.config.retention, oldest_event: isoOfMicros(stats.oldestEvent) },
        memory,
        work_shares: app.shares.status(),
      },
    };
  });
}
