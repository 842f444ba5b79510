/**
 * Query endpoints, one file each: `POST|GET /query` (run.ts), `POST /query/stream` (NDJSON),
 * `GET /query/explain`, the job endpoints with their SSE stream, and the result cache's
 * `GET /cache/stats` / `DELETE /cache`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Job } from '../../../../coordinator/jobs';
import type { QueryService } from '../../../../coordinator/query-service';
import type { App } from '../../../app/app';
import { cacheStatsRoute } from './cache-stats';
import { cancelJobRoute } from './cancel-job';
import { clearCacheRoute } from './clear-cache';
import type { QueryRoutesContext } from './context';
import { explainQueryRoute } from './explain';
import { jobEventsRoute } from './job-events';
import { jobStatusRoute } from './job-status';
import { listJobsRoute } from './list-jobs';
import { runQueryRoutes } from './run';
import { streamQueryRoute } from './stream';

export function queryRoutes(app: App, service: QueryService): FastifyPluginAsync {
  const context: QueryRoutesContext = { app, service, awaited: new Set<Job>() };
  return async (server) => {
    // On shutdown, jobs nobody waits for end at once: an NDJSON export ends with its `__error` line,
    // an SSE stream with `canceled`, and a detached job would be canceled at exit anyway.
    server.drain.onDrain(() => {
      for (const job of service.jobs.list()) {
        if (job.status === 'running' && !context.awaited.has(job)) service.jobs.cancel(job.id, 'the server is shutting down');
      }
    });

    runQueryRoutes(server, context);
    streamQueryRoute(server, context);
    explainQueryRoute(server, context);
    listJobsRoute(server, context);
    jobStatusRoute(server, context);
    cancelJobRoute(server, context);
    jobEventsRoute(server, context);
    cacheStatsRoute(server, context);
    clearCacheRoute(server, context);
  };
}
